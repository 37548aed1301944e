import Foundation
import Lupine
import Testing

// The README's "Network activity" example, verbatim (the first test checks that each of its
// lines is here, in order), run against the test server with the real delays.

@Suite struct ActivityReadmeExampleTests {
    @Test func theNetworkActivityExampleOfTheREADMEIsHereVerbatim() throws {
        try ReadmeSection.expectExamples(under: "## Network activity", count: 1, inFile: #filePath)
    }

    @Test func showingNetworkActivity() async throws {
        try await withSessionManager { _, manager in
            let indicator = NetworkActivityIndicator()  // shows after 1 s of work, hides 0.17 s after it
            let updates = indicator.visibilityUpdates()
            indicator.setNetworkingActivityAction { visible in
                print(visible ? "network busy" : "network idle")
            }
            manager.eventMonitors.append(indicator)
            _ = try await manager.get("delay/2")  // "network busy" after a second, "network idle" just after the response
            var seen: [Bool] = []
            for await visible in updates {
                seen.append(visible)
                if seen.count == 2 { break }
            }
            #expect(seen == [true, false])
        }
    }
}

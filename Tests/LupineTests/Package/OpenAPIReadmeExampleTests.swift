import Foundation
import Testing

/// The README's "OpenAPI clients" example is run by LupineOpenAPITests, where the generated
/// client it calls lives; this checks that each of its lines is there, verbatim and in order.
@Suite struct OpenAPIReadmeExampleTests {
    @Test func theOpenAPIExampleOfTheREADMEIsRunVerbatim() throws {
        let runner = URL(fileURLWithPath: ReadmeSection.readmePath).deletingLastPathComponent()
            .appending(path: "Tests/LupineOpenAPITests/ReadmeExampleTests.swift").path
        try ReadmeSection.expectExamples(under: "## OpenAPI clients", count: 1, inFile: runner)
    }
}

import Testing

@testable import LupineCLI

/// The download progress line: bytes, rate and time left.
@Suite struct ProgressBarTests {
    @Test func aLineWithATotalShowsBarPercentRateAndETA() {
        let line = ProgressBar.line(completed: 5 * 1024 * 1024, total: 10 * 1024 * 1024, bytesPerSecond: 1024 * 1024)
        #expect(line == "[##########----------]  50%  5.0 MiB of 10.0 MiB  1.0 MiB/s  ETA 5s")
    }

    @Test func withoutATotalOnlyBytesAndRate() {
        #expect(ProgressBar.line(completed: 1536, total: nil, bytesPerSecond: 0) == "1.5 KiB  0 B/s")
    }

    @Test func unitsAndDurationsReadNaturally() {
        #expect(ProgressBar.bytes(512) == "512 B")
        #expect(ProgressBar.bytes(3 * 1024 * 1024 * 1024) == "3.0 GiB")
        #expect(ProgressBar.duration(185) == "3m05s")
        #expect(ProgressBar.duration(7260) == "2h01m")
        #expect(ProgressBar.duration(.infinity) == "--")
        // A huge Content-Length trickling in (the audit's trap: Int(2^63 s)).
        #expect(ProgressBar.duration(9.3e18) == "--")
    }
}

import Testing

@testable import Lupine

/// The `Content-Range` reader of resumed downloads, by value.
@Suite struct ContentRangeTests {
    @Test func theFormsOfRFC9110AreRead() {
        #expect(ContentRange("bytes 0-99/100") == ContentRange(first: 0, last: 99, completeLength: 100))
        #expect(ContentRange("bytes 500-999/*")?.end == 1000)
        #expect(ContentRange("bytes */1000") == ContentRange(first: nil, last: nil, completeLength: 1000))
        #expect(ContentRange("Bytes  10 - 20 / 30 ") == ContentRange(first: 10, last: 20, completeLength: 30))
    }

    @Test func aRangeThatCannotBeIsNoPosition() {
        for text in ["bytes 5-4/10", "bytes -5/10", "bytes +5-9/10", "bytes 5-/10", "bytes 99999999999999999999-1/2"] {
            #expect(ContentRange(text)?.first == nil, "\(text)")
        }
        #expect(ContentRange("items 0-1/2") == nil)
        #expect(ContentRange(nil) == nil)
        #expect(ContentRange("bytes 9223372036854775806-9223372036854775807/*")?.end == nil)
    }
}

import Foundation
import Testing

@testable import Lupine

/// `queryString(from:)` against AFNetworking's `AFQueryStringFromParameters`.
@Suite struct RequestSerializationQueryStringTests {
    @Test func singlePair() throws {
        #expect(try queryString(from: ["key": "value"]) == "key=value")
    }

    @Test func emptyParametersGiveEmptyString() throws {
        #expect(try queryString(from: [:]).isEmpty)
    }

    @Test func keysAreSortedOrdinally() throws {
        #expect(try queryString(from: ["b": 1, "B": 2, "a": 3, "aa": 4]) == "B=2&a=3&aa=4&b=1")
    }

    @Test func keysAndValuesArePercentEscaped() throws {
        #expect(try queryString(from: ["k&y": "v=1 2", "path": "/a?b", "at": "x@y:z"]) == "at=x%40y%3Az&k%26y=v%3D1%202&path=/a?b")
    }

    @Test func nestedDictionaryArrayAndSet() throws {
        let parameters: [String: any Sendable] = [
            "key": ["nested": "v", "array": [1, 2], "set": Set(["b", "a"])] as [String: any Sendable]
        ]
        #expect(
            try queryString(from: parameters)
                == "key%5Barray%5D%5B%5D=1&key%5Barray%5D%5B%5D=2&key%5Bnested%5D=v&key%5Bset%5D=a&key%5Bset%5D=b"
        )
    }

    @Test func nestedKeysAreSortedAtEveryLevel() throws {
        let parameters: [String: any Sendable] = [
            "z": ["b": ["y": 1, "x": 2] as [String: any Sendable], "a": 3] as [String: any Sendable],
            "a": 0,
        ]
        #expect(try queryString(from: parameters) == "a=0&z%5Ba%5D=3&z%5Bb%5D%5Bx%5D=2&z%5Bb%5D%5By%5D=1")
    }

    @Test func arrayKeepsOrder() throws {
        #expect(try queryString(from: ["k": ["c", "a", "b"]]) == "k%5B%5D=c&k%5B%5D=a&k%5B%5D=b")
    }

    @Test func arrayOfDictionaries() throws {
        let parameters: [String: any Sendable] = ["items": [["a": 1], ["a": 2]] as [[String: Int]]]
        #expect(try queryString(from: parameters) == "items%5B%5D%5Ba%5D=1&items%5B%5D%5Ba%5D=2")
    }

    @Test func topLevelSetRepeatsKeyWithSortedValues() throws {
        #expect(try queryString(from: ["tag": Set(["pear", "apple", "fig"])]) == "tag=apple&tag=fig&tag=pear")
    }

    @Test func nullAndNilGiveBareKey() throws {
        let parameters: [String: any Sendable] = [
            "a": NSNull(),
            "b": String?.none,
            "c": "x",
            "d": ["e": Int?.none] as [String: Int?],
        ]
        #expect(try queryString(from: parameters) == "a&b&c=x&d%5Be%5D")
    }

    @Test func optionalValuesAreUnwrapped() throws {
        #expect(try queryString(from: ["o": Optional("x")]) == "o=x")
    }

    @Test func boolsAreOneAndZero() throws {
        #expect(try queryString(from: ["t": true, "f": false]) == "f=0&t=1")
    }

    @Test func numbersUseTheirDescription() throws {
        #expect(try queryString(from: ["i": 42, "d": 1.5, "n": -7]) == "d=1.5&i=42&n=-7")
    }

    @Test func nonStringDictionaryKeysUseTheirDescription() throws {
        let parameters: [String: any Sendable] = ["m": [10: "ten", 2: "two"] as [Int: String]]
        #expect(try queryString(from: parameters) == "m%5B10%5D=ten&m%5B2%5D=two")
    }
}

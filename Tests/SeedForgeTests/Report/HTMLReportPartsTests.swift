import Foundation
import Testing

@testable import SeedForge

@Suite("Report: HTML report parts")
struct HTMLReportPartsTests {
    @Test func numbersAreWrittenForPeople() {
        #expect(HTMLText.count(206_352) == "206,352")
        #expect(HTMLText.count(999) == "999")
        #expect(HTMLText.count(-1_000) == "-1,000")
        #expect(HTMLText.number(1234.5) == "1,234.5")
        #expect(HTMLText.number(-0.25) == "-0.25")
        #expect(HTMLText.percent(1, of: 8) == "12.5%")
        #expect(HTMLText.percent(1, of: 10_000) == "<0.1%")
        #expect(HTMLText.percent(0, of: 0) == "–")
        #expect(HTMLText.escape("<a href=\"x\">&'") == "&lt;a href=&quot;x&quot;&gt;&amp;&#39;")
        #expect(HTMLText.seconds(0.0184) == "18.4 ms")
        #expect(HTMLText.seconds(12.34) == "12.3 s")
    }

    @Test func positionsAreFoundInTheShapesDatasetsUse() throws {
        func find(_ json: String) throws -> Position? {
            try [UInt8](json.utf8).withUnsafeBufferPointer { buffer in
                var reader = JSONReader(bytes: buffer)
                return Position.find(in: try reader.readValue())
            }
        }
        #expect(try find(#"{"coord":{"lon":34.28,"lat":44.55}}"#) == Position(lat: 44.55, lon: 34.28))
        #expect(
            try find(#"{"geometry":{"location":{"lat":-33.89,"lng":151.27}}}"#) == Position(lat: -33.89, lon: 151.27))
        #expect(try find(#"{"coordinates":[47.36,8.55]}"#) == Position(lat: 47.36, lon: 8.55))
        // A first number that cannot be a latitude: GeoJSON's [lon, lat].
        #expect(try find(#"{"coordinates":[151.27,-33.89]}"#) == Position(lat: -33.89, lon: 151.27))
        #expect(try find(#"{"latitude":1,"longitude":2}"#) == Position(lat: 1, lon: 2))
        #expect(try find(#"{"name":"no place","rating":4}"#) == nil)
        #expect(Position(lat: 200.55, lon: 3).onGlobe == false)
    }

    @Test func profilesCountNullsBlanksDistinctValuesAndLengths() {
        var profile = CollectionProfile()
        let records: [[(String, Value)]] = [
            [("name", .string("Hive")), ("rating", .double(4.5)), ("tags", .array([.string("a"), .string("b")]))],
            [("name", .string("  ")), ("rating", .int(4))],
            [("name", .null), ("rating", .double(4.5)), ("tags", .array([.string("a")]))],
            [("rating", .string("n/a"))],
        ]
        for record in records { profile.add(record: .object(JSONObject(record))) }
        let name = profile.fields.first { $0.path == "name" }!
        #expect(name.present == 3 && name.nulls == 1 && name.blanks == 1)
        #expect(name.lengths == [4, 2])
        let rating = profile.fields.first { $0.path == "rating" }!
        #expect(rating.isNumeric && rating.numbers == [4.5, 4, 4.5])
        #expect(rating.typeSummary == "number, string")
        #expect(FieldProfile.histogram(rating.numbers).map(\.count) == [1, 2])
        let tags = profile.fields.first { $0.path == "tags" }!
        #expect(tags.top(5).map { $0.count } == [2, 1])
        #expect(tags.top(5).first?.value == .string("a"))
        // Equal bins past 20 distinct values, every value in one of them.
        let spread = FieldProfile.histogram((0..<100).map(Double.init))
        #expect(spread.count == 20 && spread.map(\.count).reduce(0, +) == 100)
    }
}

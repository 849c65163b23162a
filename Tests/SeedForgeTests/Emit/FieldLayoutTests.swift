import Foundation
import Testing

@testable import SeedForge

/// `fields:` entries with `as:` and `at:` (FieldLayout): nesting, arrays, key order, the
/// same field at several places, collisions as definition errors with their YAML line,
/// and outputs without them rendering exactly as before.
@Suite("Emit: field layout")
struct FieldLayoutTests {
    /// A pipeline of cities with one output whose `fields:` is given on its own line (line 9).
    static func pipeline(fields: String, format: String = "json", file: String = "out.json") -> String {
        """
        name: layout
        sources:
          cities:
            kind: json
            path: data.json
            fields: {id: integer, name: string, country: string, latitude: number, longitude: number, tags: array}
        outputs:
          - {file: \(file), format: \(format), collection: cities,
             fields: \(fields)}
        """
    }

    static let city = Record(
        values: [
            .int(707860), .string("Hurzuf"), .string("UA"), .double(44.55), .double(34.28), .array([.string("sea")]),
        ],
        origin: Origin(source: SourceText(displayPath: "x", bytes: []), offset: 0, index: 0))

    static func output(_ fields: String, format: String = "json") throws -> OutputDefinition {
        try Harness.load(pipeline(fields: fields, format: format), files: ["data.json": "[]"]).outputs[0]
    }

    static func rendered(_ output: OutputDefinition, _ records: [Record] = [city]) throws -> String {
        let schema = Schema(fields: [
            FieldSpec(name: "id", type: .integer, sourcePath: nil),
            FieldSpec(name: "name", type: .string, sourcePath: nil),
            FieldSpec(name: "country", type: .string, sourcePath: nil),
            FieldSpec(name: "latitude", type: .number, sourcePath: nil),
            FieldSpec(name: "longitude", type: .number, sourcePath: nil),
            FieldSpec(name: "tags", type: .array, sourcePath: nil),
        ])
        let format = try #require(output.format as? any SingleFileFormat)
        return String(
            decoding: format.render(records, fields: output.fields.map { schema[$0] }, ids: output.fields),
            as: UTF8.self)
    }

    @Test func theMapAppsCityShapeNestsAnObjectInDeclaredKeyOrder() throws {
        let output = try Self.output(
            "[country, name, {field: id, as: _id}, {field: longitude, at: /coord/lon}, {field: latitude, at: /coord/lat}]"
        )
        #expect(
            try Self.rendered(output) == """
                [
                  {
                    "country": "UA",
                    "name": "Hurzuf",
                    "_id": 707860,
                    "coord": {
                      "lon": 34.28,
                      "lat": 44.55
                    }
                  }
                ]

                """)
        let ndjson = try Self.output(
            "[country, name, {field: id, as: _id}, {field: longitude, at: /coord/lon}, {field: latitude, at: /coord/lat}]",
            format: "ndjson")
        #expect(
            try Self.rendered(ndjson)
                == #"{"country":"UA","name":"Hurzuf","_id":707860,"coord":{"lon":34.28,"lat":44.55}}"# + "\n")
    }

    @Test func arrayPositionsBuildAnArrayAndAFieldMayBeWrittenTwice() throws {
        let output = try Self.output(
            "[id, {field: latitude, at: /coordinates/0}, {field: longitude, at: /coordinates/1}, {field: id, as: _id}, {field: tags, at: /meta/0/tags}]",
            format: "ndjson")
        #expect(
            try Self.rendered(output)
                == #"{"id":707860,"coordinates":[44.55,34.28],"_id":707860,"meta":[{"tags":["sea"]}]}"# + "\n")
        #expect(output.fields.count == 5)
        #expect(output.layout?.pointer(of: FieldID(index: 3), ids: output.fields) == "/coordinates/0")
    }

    @Test func aNestedObjectTakesItsPlaceAtItsFirstMentionAndPositionsMayComeInAnyOrder() throws {
        let output = try Self.output(
            "[{field: longitude, at: /coord/1}, name, {field: latitude, at: /coord/0}, {field: country, at: /a~1b}]",
            format: "ndjson")
        #expect(try Self.rendered(output) == #"{"coord":[44.55,34.28],"name":"Hurzuf","a/b":"UA"}"# + "\n")
    }

    @Test func theIndentedFileHoldsWhatTheCompactLineHolds() throws {
        let fields =
            "[{field: name, at: /city/name}, {field: latitude, at: /city/position/0}, {field: longitude, at: /city/position/1}, {field: tags, at: /city/tags}, country]"
        let pretty =
            try JSONSerialization.jsonObject(with: Data(Self.rendered(Self.output(fields)).utf8)) as! [NSDictionary]
        let compact =
            try JSONSerialization.jsonObject(with: Data(Self.rendered(Self.output(fields, format: "ndjson")).utf8))
            as! NSDictionary
        #expect(pretty == [compact])
    }

    /// The layout writes records straight into the file; its bytes are those of the
    /// object it describes, written by JSONWriter (indented for json, compact for ndjson),
    /// whatever the values: arrays and objects inside arrays, empty ones, nulls.
    @Test func directRenderingGivesTheBytesOfTheDescribedObject() throws {
        let fields =
            "[name, {field: latitude, at: /a/0}, {field: tags, at: /a/1}, {field: tags, at: /b/0/c}, {field: longitude, at: /b/0/d/0}, {field: id, at: /b/1}, {field: country, at: /e/f}]"
        let json = try Self.output(fields)
        let ndjson = try Self.output(fields, format: "ndjson")
        let source = SourceText(displayPath: "x", bytes: [])
        let tagsValues: [Value] = [
            .array([.string("sea")]), .array([]), .null,
            .object(JSONObject([("k", .array([.int(1), .object(JSONObject())]))])), .string("x"),
        ]
        let records = Self.records(tags: tagsValues, source: source)
        let layout = try #require(json.layout)
        var pretty = "[\n"
        var compact = ""
        for (index, record) in records.enumerated() {
            var writer = JSONWriter()
            writer.writePretty(layout.object(record, ids: json.fields), indent: 1)
            pretty += (index > 0 ? ",\n" : "") + "  " + String(decoding: writer.bytes, as: UTF8.self)
            compact += JSONWriter.compact(layout.object(record, ids: json.fields)) + "\n"
        }
        pretty += "\n]\n"
        #expect(try Self.rendered(json, records) == pretty)
        #expect(try Self.rendered(ndjson, records) == compact)
        withExtendedLifetime(source) {}
    }

    /// A layout of objects only is rendered through a frame (fixed text between values):
    /// its bytes are still those of the object it describes, with values nested one and two
    /// objects deep indented as `writePretty` indents them (arrays, objects, empty ones,
    /// nulls, text to escape), and a field written twice. A layout with an array has no frame.
    @Test func aLayoutOfObjectsOnlyRendersThroughAFrameWithTheDescribedBytes() throws {
        let fields =
            "[name, {field: tags, at: /a/t}, {field: id, at: /a/b/id}, {field: tags, at: /a/b/t}, {field: country, as: c}, {field: latitude, at: /z/lat}]"
        let json = try Self.output(fields)
        let layout = try #require(json.layout)
        let framed = try #require(JSONFormat.frame(layout: layout))
        #expect(framed.positions == [0, 1, 2, 3, 4, 5])
        #expect(try JSONFormat.frame(layout: #require(Self.output("[name, {field: id, at: /a/0}]").layout)) == nil)
        let source = SourceText(displayPath: "x", bytes: [])
        let tagsValues: [Value] = [
            .array([.string("sea")]), .array([]), .null, .object(JSONObject()),
            .object(JSONObject([("k", .array([.int(1), .object(JSONObject([("q", .string("\"x\n"))]))]))])),
            .string("tab\there"),
        ]
        let records = Self.records(tags: tagsValues, source: source)
        var pretty = "[\n"
        for (index, record) in records.enumerated() {
            var writer = JSONWriter()
            writer.writePretty(layout.object(record, ids: json.fields), indent: 1)
            pretty += (index > 0 ? ",\n" : "") + "  " + String(decoding: writer.bytes, as: UTF8.self)
        }
        pretty += "\n]\n"
        #expect(try Self.rendered(json, records) == pretty)
        withExtendedLifetime(source) {}
    }

    @Test func withoutAsOrAtThereIsNoLayoutAndTheBytesAreTheFlatOnes() throws {
        let plain = try Self.output("[name, id, latitude]")
        #expect(plain.layout == nil)
        let plainMapping = try Self.output("[{field: name}, id, latitude]")
        #expect(plainMapping.layout == nil)
        #expect(try Self.rendered(plain) == Self.rendered(plainMapping))
        // Renamed at the top level: the same bytes but for the key.
        let renamed = try Self.output("[name, {field: id, as: _id}, latitude]")
        #expect(
            try Self.rendered(renamed) == Self.rendered(plain).replacingOccurrences(of: "\"id\":", with: "\"_id\":"))
    }

    @Test(arguments: [
        (
            "[name, {field: country, as: name}]",
            "'/name' is written twice: field 'name' (line 9) is there already, so field 'country' cannot be"
        ),
        ("[{field: latitude, at: /coord/lat}, {field: longitude, at: /coord/lat}]", "'/coord/lat' is written twice"),
        (
            "[{field: latitude, at: /coord/lat}, {field: country, at: /coord}]",
            "'/coord' holds an object (field 'latitude' at line 9 is inside it)"
        ),
        (
            "[{field: country, at: /coord}, {field: latitude, at: /coord/lat}]",
            "field 'latitude' cannot go inside '/coord': field 'country' (line 9) is written there"
        ),
        (
            "[{field: latitude, at: /c/0}, {field: longitude, at: /c/lon}]",
            "'/c' is an array (field 'latitude' at line 9), but field 'longitude' at '/c/lon' makes it an object"
        ),
        (
            "[{field: latitude, at: /c/lat}, {field: longitude, at: /c/1}]",
            "'/c' is an object (field 'latitude' at line 9), but field 'longitude' at '/c/1' makes it an array"
        ),
        (
            "[{field: latitude, at: /c/0}, {field: longitude, at: /c/2}]",
            "the array at '/c' has positions 0, 2 but not 1"
        ),
        ("[{field: latitude, at: /0}]", "must start with a key, not an array position"),
        ("[{field: latitude, at: coord/lat}]", "must be a JSON Pointer such as /coord/lat"),
        ("[{field: latitude, at: /coord//lat}]", "holds an empty key"),
        ("[{field: latitude, as: lat, at: /lat}]", "takes 'as' (a key) or 'at' (a JSON Pointer), not both"),
        ("[{field: latitude, as: \"\"}]", "'as' of field 'latitude' is empty"),
        ("[{field: latitud, as: lat}]", "unknown field 'latitud' in collection 'cities'; did you mean 'latitude'?"),
        ("[{field: latitude, at: /lat, default: 0}]", "unknown key 'default' in an entry of 'fields'"),
        ("[{as: lat}]", "missing required key 'field'"),
        ("[name, name]", "field 'name' is listed twice in 'fields'"),
    ])
    func collisionsAndMistakesAreDefinitionErrorsOnTheirLine(fields: String, message: String) {
        let errors = Harness.definitionErrors(Self.pipeline(fields: fields))
        #expect(errors.count == 1, "\(errors)")
        #expect(errors.first?.message.contains(message) == true, "\(errors.map(\.message))")
        #expect(errors.first?.line == 9, "\(errors)")
    }

    @Test(arguments: [("csv", "out.csv"), ("sqlite", "out.sqlite"), ("text", "out.txt")])
    func flatFormatsRefuseAsAndAt(format: String, file: String) {
        let errors = Harness.definitionErrors(
            Self.pipeline(fields: "[name, {field: id, as: _id}]", format: format, file: file))
        #expect(
            errors.first?.message.contains("a \(format) output writes flat columns named after their fields") == true,
            "\(errors)")
        #expect(errors.first?.line == 9)
        // The same field twice is refused there too: a column per field.
        let twice = Harness.definitionErrors(Self.pipeline(fields: "[name, {field: name}]", format: format, file: file))
        #expect(twice.first?.message.contains("listed twice") == true, "\(twice)")
    }

    @Test func aLayoutSharedThroughAYAMLAliasReportsItsErrorOnce() {
        let yaml = """
            name: layout
            sources:
              cities: {kind: json, path: data.json, fields: {id: integer, name: string}}
            outputs:
              - {file: a.json, collection: cities, fields: &shape [name, {field: id, as: name}]}
              - {file: b.ndjson, collection: cities, fields: *shape}
            """
        let errors = Harness.definitionErrors(yaml)
        #expect(errors.map(\.line) == [5], "\(errors)")
        #expect(errors.first?.message.contains("'/name' is written twice") == true)
    }

    @Test func aPrefixIndexMustDisplayFieldsItsPagesWrite() {
        let yaml = """
            name: layout
            sources:
              cities: {kind: json, path: data.json, fields: {id: integer, name: string, country: string}}
            steps:
              - {normalize: search-key, collection: cities, from: name, field: key}
              - {aggregate: sort, collection: cities, by: [{field: key, collation: exact}]}
            outputs:
              - {file: cities.json, collection: cities}
              - {file: pages, format: pages, collection: cities, size: 2, key: key, fields: [{field: name, at: /city/name}, key]}
              - {file: index, format: prefix-index, collection: cities, key: key, pages: pages, display: [name, country]}
            """
        let errors = Harness.definitionErrors(yaml)
        #expect(
            errors.first?.message.contains(
                "prefix-index displays 'country', but its pages 'pages' do not write that field") == true, "\(errors)")
        #expect(errors.first?.line == 10)
    }

    /// One city record for each value of `tags` (the third without a country).
    static func records(tags: [Value], source: SourceText) -> [Record] {
        tags.enumerated().map { index, tags in
            Record(
                values: [
                    .int(Int64(index)), .string("n\(index)"), index == 2 ? .null : .string("UA"), .double(44.5),
                    .int(-3), tags,
                ], origin: Origin(source: source, offset: 0, index: index))
        }
    }
}

import Foundation
import Testing

@testable import SeedForge

/// `kind: csv` and `kind: tsv`: RFC 4180 quoting, header or declared columns, typed fields,
/// and every malformed row rejected with its line and column, nothing lost.
@Suite("Sources: csv and tsv")
struct CSVSourceTests {
    static func pipeline(
        kind: String = "csv", path: String = "data.csv", extra: String = "",
        fields: String = "      id: integer\n      name: string\n      lat: number"
    ) -> String {
        """
        name: delimited
        sources:
          items:
            kind: \(kind)
            path: \(path)
            id: id
        \(extra)
            fields:
        \(fields)
        outputs:
          - file: items.json
            collection: items
        thresholds:
          max-reject-fraction: 1
        """
    }

    func run(_ data: String, kind: String = "csv", extra: String = "", fields: String? = nil) throws -> RunResult {
        let yaml =
            fields.map { Self.pipeline(kind: kind, extra: extra, fields: $0) }
            ?? Self.pipeline(kind: kind, extra: extra)
        return try Harness.run(yaml, files: ["data.csv": data])
    }

    @Test func readsQuotedFieldsTypesABOMCRLFCommentsAndBlankLines() throws {
        let data =
            "\u{FEFF}# exported 2026-11\r\nid,name,lat\r\n1,\"Paris, France\",48.85\r\n\r\n2,\"say \"\"hi\"\"\",-0.5e1\r\n"
            + "# a comment between rows\n3,\"two\nlines\",7\n4,,\n5,\"\",1e2"
        let result = try run(data, extra: "    comment: \"#\"")
        let records = result.records("items")
        #expect(records.map { $0["id"] } == [.int(1), .int(2), .int(3), .int(4), .int(5)])
        #expect(
            records.map { $0["name"] } == [
                .string("Paris, France"), .string("say \"hi\""), .string("two\nlines"), .null, .string(""),
            ])
        #expect(records.map { $0["lat"] } == [.double(48.85), .double(-5), .int(7), .null, .double(100)])
        #expect(result.rejects("items").isEmpty)
    }

    @Test func numbersAreReadExactlyAsJSONWouldReadThem() throws {
        for text in ["0.1", "48.85341", "-157.86167", "1e-7", "123456789012345678901", "2.5E+3", "0.000001234"] {
            let bytes = Array(text.utf8)
            let value = bytes.withUnsafeBufferPointer { CSVCellValue.number($0) }
            #expect(value?.number == Double(text), "\(text)")
        }
        let big = Array("9223372036854775807".utf8).withUnsafeBufferPointer { CSVCellValue.number($0) }
        #expect(big == .int(Int64.max))
        for bad in ["", "-", "1.2.3", "1e", "12k", "0x10", "1,5"] {
            #expect(Array(bad.utf8).withUnsafeBufferPointer { CSVCellValue.number($0) } == nil, "\(bad)")
        }
    }

    /// `number` reads digits alone by a shortcut: the same value wherever that shortcut
    /// applies as the full reading, and nothing where it does not (the full reading then
    /// decides).
    @Test func theIntegerShortcutReadsWhatTheFullReadingReads() {
        var texts = [
            "0", "-0", "+0", "7", "007", "-42", "+42", "123456789012345678", "-999999999999999999",
            "1234567890123456789", "000000000000000000001", "-", "+", "1.0", "1e3", "12a", " 1", "--1", "+-1", "٣",
        ]
        var generator = SplitMix64(state: 41)
        for _ in 0..<20_000 {
            let digits = Int(generator.next() % 20) + 1
            var text = ["", "-", "+"][Int(generator.next() % 3)]
            for _ in 0..<digits { text += String(generator.next() % 10) }
            texts.append(text)
        }
        for text in texts {
            let bytes = Array(text.utf8)
            bytes.withUnsafeBufferPointer { buffer in
                #expect(CSVCellValue.number(buffer) == CSVCellValue.parsedNumber(buffer), "\(text)")
                if let plain = CSVCellValue.plainInteger(buffer) {
                    #expect(CSVCellValue.parsedNumber(buffer) == .int(plain), "\(text)")
                } else {
                    let digitsOnly = text.utf8.dropFirst(text.first == "-" || text.first == "+" ? 1 : 0)
                    #expect(
                        digitsOnly.isEmpty || digitsOnly.count > 18
                            || digitsOnly.contains { $0 < UInt8(ascii: "0") || $0 > UInt8(ascii: "9") }, "\(text)")
                }
            }
        }
    }

    /// The room given to a stretch's rows follows its first rows' length, but never more
    /// than one row for every 32 bytes of the stretch.
    @Test func theRowsOfAStretchAreEstimatedFromItsFirstRows() {
        // Rows of 67 bytes (the benchmark's cities): room for every row at once.
        let cities = RowReader.estimatedRows(read: 255, bytes: 255 * 67, of: 33_000_000)
        #expect(cities == 541_807)
        #expect(cities >= 33_000_000 / 67)
        // A gigabyte whose first rows are 2 bytes long: not 590M entries (some 40 GB of
        // room) but a row for every 32 bytes, about 2.25 GB at 72 bytes an entry.
        let short = RowReader.estimatedRows(read: 255, bytes: 255 * 2, of: 1 << 30)
        #expect(short == (1 << 30) / 32 + 256)
        #expect(RowReader.estimatedRows(read: 255, bytes: 0, of: 1000) == 255)
    }

    @Test func typesIntegersDecimalsAndBooleans() throws {
        let result = try run(
            "id,price,open,count\n1, 40.50 ,TRUE,136256.0\n2,7,false,3\n",
            fields: "      id: integer\n      price: decimal\n      open: boolean\n      count: integer")
        let records = result.records("items")
        #expect(records.map { $0["price"] } == [.decimal("40.5"), .decimal("7")])
        #expect(records.map { $0["open"] } == [.bool(true), .bool(false)])
        #expect(records.map { $0["count"] } == [.int(136256), .int(3)])
    }

    @Test func malformedRowsAreRejectedWithLineAndColumnAndNothingIsLost() throws {
        let data = """
            id,name,lat
            1,Berlin,52.5
            2,Rome
            3,"Madrid" (ES),40.4
            4,say "hi",1
            5,Lisbon,n/a
            6,"unclosed,1
            7,Oslo,59.9,extra
            8,Vienna,48.2
            """
        let result = try run(data)
        #expect(result.records("items").map { $0["id"] } == [.int(1), .int(8)])
        let rejects = result.rejects("items")
        #expect(result.state.ingested["items"] == 8)
        #expect(rejects.count == 6)
        let found = rejects.map {
            ($0.findings[0].rule, $0.findings[0].location!.line, $0.findings[0].location!.column)
        }
        #expect(found.map(\.0) == ["csv-columns", "csv-syntax", "csv-syntax", "type", "csv-syntax", "csv-columns"])
        #expect(found.map(\.1) == [3, 4, 5, 6, 7, 8])
        // Rome ends at column 7; Madrid's text after its quote at 11; the quote in "hi" at 7;
        // n/a at 10; the unclosed quote at 3; the extra field at 13.
        #expect(found.map(\.2) == [7, 11, 7, 10, 3, 13])
        #expect(rejects[0].findings[0].message == "row has 2 fields, the header names 3")
        #expect(rejects[3].findings[0].message == "field 'lat' must be a number, found the text \"n/a\"")
        #expect(rejects[3].findings[0].location?.pointer == "/lat")
        #expect(rejects[3].id == .int(5))
        #expect(rejects[4].findings[0].message.contains("never closed"))
        #expect(rejects[1].findings[0].value == .string("3,\"Madrid\" (ES),40.4"))
    }

    @Test func anUnclosedQuoteIsReportedWhereItOpensAndTheNextLinesAreStillRead() throws {
        let data = "id,name,lat\n1,\"Paris,48.8\n2,Rome,41.9\n3,\"Oslo\" x,59.9\n4,Bern,46.9\n"
        let result = try run(data)
        // Row 1's quote runs to Oslo's; the lines after it are read again as rows.
        #expect(result.records("items").map { $0["id"] } == [.int(2), .int(4)])
        let rejects = result.rejects("items")
        #expect(rejects.map { $0.findings[0].location!.line } == [2, 4])
        #expect(rejects[0].findings[0].location?.column == 3)
        #expect(rejects[0].findings[0].message.contains("is its closing quote missing?"))
    }

    @Test func declaredColumnsWithoutAHeaderAndColumnsByNumber() throws {
        let named = try run(
            "1;Paris;48.8\n2;Rome;41.9\n",
            extra: "    header: false\n    columns: [geonameid, city, latitude]\n    delimiter: \";\"",
            fields:
                "      id: {type: integer, from: geonameid}\n      name: {type: string, from: city}\n      lat: {type: number, from: latitude}"
        )
        #expect(named.records("items").map { $0["name"] } == [.string("Paris"), .string("Rome")])
        let numbered = try run(
            "1|Paris|48.8\n", extra: "    header: false\n    delimiter: \"|\"",
            fields:
                "      id: {type: integer, from: /0}\n      name: {type: string, from: /1}\n      lat: {type: number, from: /2}"
        )
        #expect(numbered.records("items").first?["lat"] == .double(48.8))
        // With a header and 'columns', the file's header row is skipped.
        let skipped = try run(
            "a,b,c\n1,Paris,48.8\n", extra: "    header: true\n    columns: [id, name, lat]")
        #expect(skipped.records("items").map { $0["id"] } == [.int(1)])
    }

    @Test func tsvTakesQuotesAsOrdinaryCharacters() throws {
        let result = try run("id\tname\tlat\n1\tKaka\"ako\t21.3\n2\t\"Quoted\"\t1\n", kind: "tsv")
        #expect(result.records("items").map { $0["name"] } == [.string("Kaka\"ako"), .string("\"Quoted\"")])
    }

    @Test func aHeaderWithoutAFieldsColumnFailsTheFileWithASuggestion() throws {
        let error = try #require(
            Harness.sourceError(Self.pipeline(), files: ["data.csv": Array("id,nmae,lat\n1,x,2\n".utf8)]))
        #expect(
            error.message.contains("no column 'name' (taken by field 'name') in the header row; did you mean 'nmae'?"))
        #expect(error.location.file.hasSuffix("data.csv"))
    }

    @Test func unknownColumnsWarnOrFailTheFileAsAsked() throws {
        let warned = try run("id,name,lat,extra\n1,x,2,y\n", extra: "    unknown-fields: warn")
        #expect(
            warned.state.warnings.map(\.finding.message) == [
                "column 'extra' is not taken by any of the source's 'fields'"
            ])
        let error = Harness.sourceError(
            Self.pipeline(extra: "    unknown-fields: reject"), files: ["data.csv": Array("id,name,lat,extra\n".utf8)])
        #expect(error?.message.contains("'extra'") == true)
    }

    @Test func invalidUTF8RejectsTheRecordNamingTheField() throws {
        let dir = try TempDir()
        _ = try dir.write("data.csv", bytes: Array("id,name,lat\n1,Caf".utf8) + [0xE9] + Array(",2\n2,ok,3\n".utf8))
        let pipeline = try Harness.load(Self.pipeline(), in: dir)
        let run = try Runner.run(
            pipeline, options: RunOptions(outputRoot: dir.path + "/out", writeOutputs: false, logger: Harness.silent))
        #expect(run.records("items").map { $0["id"] } == [.int(2)])
        #expect(run.rejectedRules("items") == ["encoding"])
        #expect(run.rejects("items")[0].findings[0].location?.column == 3)
    }

    @Test func aGzipFileIsReadAsItsText() throws {
        let dir = try TempDir()
        _ = try dir.write("data.csv.gz", bytes: Array(try PaginatedSourceTests.gzip("id,name,lat\n1,Paris,48.8\n")))
        let pipeline = try Harness.load(Self.pipeline(path: "data.csv.gz"), in: dir)
        let run = try Runner.run(
            pipeline, options: RunOptions(outputRoot: dir.path + "/out", writeOutputs: false, logger: Harness.silent))
        #expect(run.records("items").map { $0["name"] } == [.string("Paris")])
    }

    @Test func aRowOverTheRecordLimitFailsTheFile() throws {
        let long = String(repeating: "x", count: 200)
        let error = Harness.sourceError(
            Self.pipeline() + "\nlimits: {max-value-bytes: 100}",
            files: ["data.csv": Array("id,name,lat\n1,\(long),2\n".utf8)])
        #expect(error?.message.contains("max-value-bytes") == true)
        #expect(error?.location.line == 2)
    }

    /// A file large enough to be read in chunks: the same records, rejects and locations
    /// with 1, 2 or 3 threads, also when a quoted line break sits where a chunk would start.
    @Test func resultsAreTheSameForAnyThreadCount() throws {
        var rows = ["id,name,lat"]
        for index in 0..<30_000 {
            switch index % 997 {
            case 5: rows.append("\(index),\"multi\nline \(index)\",1.5")
            case 11: rows.append("\(index),bad\"quote,1")
            case 13: rows.append("\(index),short")
            default: rows.append("\(index),city \(index),\(Double(index % 180) - 89.5)")
            }
        }
        let dir = try TempDir()
        _ = try dir.write("data.csv", rows.joined(separator: "\n") + "\n")
        #expect(try dir.bytes("data.csv").count > 1 << 18)
        var outcomes: [String] = []
        for threads in [1, 2, 3] {
            let pipeline = try Harness.load(Self.pipeline(), in: dir)
            let run = try Runner.run(
                pipeline,
                options: RunOptions(
                    outputRoot: dir.path + "/out", writeOutputs: false, logger: Harness.silent, threads: threads))
            let records = run.records("items")
            #expect(records.count == 30_000 - 2 * 31)
            let rejects = run.rejects("items").map {
                "\($0.findings[0].rule)@\($0.findings[0].location!.line):\($0.findings[0].location!.column)"
            }
            outcomes.append("\(records.map { $0["name"]! })|\(rejects)")
        }
        #expect(outcomes[0] == outcomes[1] && outcomes[1] == outcomes[2])
    }

    /// A chunk that starts inside a long quoted field reads nonsense, here a field running
    /// to a quote far below that is over the value limit: the file is read in one piece
    /// instead, and that error, which the file does not have, is not reported.
    @Test func aChunkStartingInsideAQuotedFieldDoesNotFailTheFile() throws {
        var before = "id,name,lat\n"
        for index in 0..<3_000 { before += "\(index),city \(index),1.5\n" }
        // A legitimate quoted field of 8,000 lines, each an escaped quote and a comma.
        let field = "3000,\"note\n" + String(repeating: "\"\",\n", count: 8_000) + "\",1.5\n"
        var after = ""
        for index in 3_001..<7_000 { after += "\(index),city \(index),2.5\n" }
        after += "7000,bad\",3\n"
        let text = before + field + after
        // With two threads the second chunk starts at the line after the middle: inside the field.
        let middle = text.utf8.count / 2
        #expect(middle > before.utf8.count && middle < before.utf8.count + field.utf8.count)
        #expect(text.utf8.count > 1 << 17)
        let dir = try TempDir()
        _ = try dir.write("data.csv", text)
        let pipeline = try Harness.load(Self.pipeline() + "\nlimits: {max-value-bytes: 40KiB}", in: dir)
        for threads in [1, 2] {
            let run = try Runner.run(
                pipeline,
                options: RunOptions(
                    outputRoot: dir.path + "/out", writeOutputs: false, logger: Harness.silent, threads: threads))
            #expect(run.records("items").count == 7_000, "threads \(threads)")
            #expect(run.rejectedRules("items") == ["csv-syntax"], "threads \(threads)")
        }
    }

    /// Random delimited text (quotes, delimiters, CR, LF, comment marks, a byte order mark,
    /// invalid UTF-8, digits): never a crash, and every row read ends as a record or a
    /// rejection. Columns are taken by number, also without a header, and the first rows
    /// may all be broken.
    @Test func randomBytesNeverCrashAndLoseNoRow() throws {
        var generator = SplitMix64(state: 14)
        let alphabet: [UInt8] = Array("\",,,\n\n\r#ab1.5-é".utf8) + [0xFF, 0xC3, 0xEF, 0xBB, 0xBF]
        for round in 0..<300 {
            let length = Int(generator.next() % 200)
            let bytes = (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            let header = round % 2 == 0
            let yaml = Self.pipeline(
                extra: header ? "    comment: \"#\"" : "    header: false",
                fields: header
                    ? "      id: integer\n      name: string\n      lat: number"
                    : "      id: {type: integer, from: /0}\n      name: {type: string, from: /2}")
            let dir = try TempDir()
            _ = try dir.write("data.csv", bytes: bytes)
            let pipeline = try Harness.load(yaml, in: dir)
            let run = try Runner.run(
                pipeline,
                options: RunOptions(outputRoot: dir.path + "/out", writeOutputs: false, logger: Harness.silent))
            let read = run.state.ingested["items"] ?? 0
            #expect(read == run.records("items").count + run.rejects("items").count, "round \(round)")
        }
    }

    /// The scanner looks for the bytes that end an unquoted field 8 at a time: it must find
    /// the same first delimiter, LF or quote a byte-by-byte look does, wherever it lies in a
    /// word (and past the last whole word), for each dialect.
    @Test func theNextDelimiterLineFeedOrQuoteIsFoundAsAByteByByteLookFindsIt() {
        var generator = SplitMix64(state: 1125)
        let dialects = [
            CSVDialect(delimiter: UInt8(ascii: ","), quote: UInt8(ascii: "\""), comment: nil),
            CSVDialect(delimiter: UInt8(ascii: "\t"), quote: nil, comment: nil),
            CSVDialect(delimiter: UInt8(ascii: ";"), quote: UInt8(ascii: "'"), comment: UInt8(ascii: "#")),
        ]
        // Bytes next to the special ones (each ±1, and with the high bit flipped) besides them.
        let alphabet: [UInt8] = Array(",;\t\n\"'+-:<&!\r\u{0B}a1 ".utf8) + [0xAC, 0xBB, 0x8A, 0xA2, 0xA7, 0xFF, 0x00]
        for round in 0..<3000 {
            let dialect = dialects[round % dialects.count]
            let length = Int(generator.next() % 40)
            // Mostly plain text, so a special byte falls anywhere in a word.
            let bytes = (0..<length).map { _ in
                generator.next() % 4 == 0 ? alphabet[Int(generator.next() % UInt64(alphabet.count))] : UInt8(ascii: "x")
            }
            bytes.withUnsafeBufferPointer { buffer in
                let scanner = CSVScanner(buffer, dialect: dialect)
                for from in 0...length {
                    var expected = from
                    while expected < length, bytes[expected] != dialect.delimiter, bytes[expected] != 0x0A,
                        dialect.quote.map({ bytes[expected] != $0 }) ?? true
                    {
                        expected += 1
                    }
                    #expect(scanner.nextSpecial(from: from) == expected, "round \(round) from \(from): \(bytes)")
                }
            }
        }
    }

    @Test func definitionErrorsNameTheMistake() throws {
        let array = Harness.definitionErrors(
            Self.pipeline(fields: "      id: integer\n      tags: array"), files: ["data.csv": ""])
        #expect(array.map(\.message).contains { $0.contains("cannot be of type array") && $0.contains("split") })
        let nested = Harness.definitionErrors(
            Self.pipeline(fields: "      id: integer\n      lat: {type: number, from: /coord/lat}"),
            files: ["data.csv": ""])
        #expect(nested.map(\.message).contains { $0.contains("names one column") })
        let unnamed = Harness.definitionErrors(Self.pipeline(extra: "    header: false"), files: ["data.csv": ""])
        #expect(unnamed.map(\.message).contains { $0.contains("needs from: /0") })
        let delimiter = Harness.definitionErrors(Self.pipeline(extra: "    delimiter: \";;\""), files: ["data.csv": ""])
        #expect(delimiter.map(\.message).contains { $0.contains("must be one ASCII character") })
    }

    /// Inline records in pipeline tests are written as a CSV file and read back.
    @Test func aDocumentHoldingRecordsReadsBackTheSame() throws {
        let pipeline = try Harness.load(Self.pipeline(), files: ["data.csv": ""])
        let bytes = pipeline.sources[0].kind.document(holding: [
            .object(JSONObject([("id", .int(1)), ("name", .string("a, \"b\"")), ("lat", .double(1.5))])),
            .object(JSONObject([("id", .int(2)), ("name", .string("")), ("lat", .null)])),
        ])
        let result = try run(String(decoding: bytes, as: UTF8.self))
        #expect(result.records("items").map { $0["name"] } == [.string("a, \"b\""), .string("")])
        #expect(result.records("items").map { $0["lat"] } == [.double(1.5), .null])
        // Columns taken by number, without a header: records keyed by column number.
        let numbered = Self.pipeline(
            extra: "    header: false",
            fields: "      id: {type: integer, from: /0}\n      name: {type: string, from: /2}")
        let rows = try Harness.load(numbered, files: ["data.csv": ""]).sources[0].kind.document(holding: [
            .object(JSONObject([("0", .int(7)), ("2", .string("Oslo"))]))
        ])
        #expect(String(decoding: rows, as: UTF8.self) == "7,,Oslo\n")
    }
}

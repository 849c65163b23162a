import Foundation
import Testing

@testable import SeedForge

/// Comparing two snapshots: records matched by key, changed fields with both values, and
/// what cannot be compared said rather than guessed.
@Suite("Changes: comparing snapshots")
struct ChangeComparisonTests {
    static func snapshot(_ lines: [String]) throws -> Snapshot {
        try Snapshot(rendered: Array((lines.joined(separator: "\n") + "\n").utf8))
    }

    static let head = #"{"format":"seedforge-snapshot","version":1,"dataset":"cities"}"#

    static func cities(
        _ records: [String], key: String = #"["id"]"#, fields: String = #"["id","name","country"]"#
    )
        throws -> Snapshot
    {
        try snapshot(
            [head, #"{"collection":"cities","key":\#(key),"fields":\#(fields),"records":\#(records.count)}"#] + records)
    }

    @Test func addedRemovedAndChangedRecordsWithTheirFields() throws {
        let old = try Self.cities([#"[1,"Hurzuf","UA"]"#, #"[2,"Alabama","US"]"#, #"[3,"Sydney","AU"]"#])
        let new = try Self.cities([#"[3,"Sydney","AU"]"#, #"[1,"Gurzuf","UA"]"#, #"[4,"Zürich","CH"]"#])
        let changes = ChangeComparison.compare(previous: .success(old), current: new)
        let cities = try #require(changes.collection("cities"))
        #expect(cities.compared)
        #expect((cities.previous, cities.current) == (3, 3))
        #expect((cities.added, cities.removed, cities.changed, cities.unchanged) == (1, 1, 1, 1))
        #expect(changes.summaryLine(dataset: "cities") == "cities: +1 \u{2212}1 ~1 since the last run")
        // Added and changed in the new order, then removed in the previous order.
        #expect(
            String(decoding: changes.ndjson(), as: UTF8.self) == """
                {"collection":"cities","change":"changed","key":{"id":1},"fields":[{"field":"name","old":"Hurzuf","new":"Gurzuf"}]}
                {"collection":"cities","change":"added","key":{"id":4},"record":{"id":4,"name":"Zürich","country":"CH"}}
                {"collection":"cities","change":"removed","key":{"id":2},"record":{"id":2,"name":"Alabama","country":"US"}}

                """)
    }

    @Test func equalDatasetsHaveNoEntries() throws {
        let old = try Self.cities([#"[1,"Hurzuf","UA"]"#, #"[2,"Alabama","US"]"#])
        let changes = ChangeComparison.compare(previous: .success(old), current: old)
        #expect(!changes.differs && changes.entries.isEmpty)
        #expect(changes.collection("cities")?.unchanged == 2)
        #expect(changes.summaryLine(dataset: "cities") == "cities: +0 \u{2212}0 ~0 since the last run")
    }

    @Test func aCompositeKeyAndFieldsAddedOrDroppedByTheDefinition() throws {
        let old = try Self.cities(
            [#"["Paris","FR",2]"#, #"["Rome","IT",1]"#], key: #"["name","country"]"#,
            fields: #"["name","country","museums"]"#)
        // `museums` is gone, `open` is new: null where it was absent is no change.
        let new = try Self.cities(
            [#"["Paris","FR",null]"#, #"["Rome","IT",true]"#], key: #"["name","country"]"#,
            fields: #"["name","country","open"]"#)
        let changes = ChangeComparison.compare(previous: .success(old), current: new)
        #expect(changes.collection("cities")?.changed == 2)
        #expect(
            String(decoding: changes.ndjson(), as: UTF8.self) == """
                {"collection":"cities","change":"changed","key":{"name":"Paris","country":"FR"},"fields":[{"field":"museums","old":2,"new":null}]}
                {"collection":"cities","change":"changed","key":{"name":"Rome","country":"IT"},"fields":[{"field":"open","old":null,"new":true},{"field":"museums","old":1,"new":null}]}

                """)
    }

    @Test func whatCannotBeComparedIsSaidNotGuessed() throws {
        let new = try Self.cities([#"[1,"Hurzuf","UA"]"#])
        let first = ChangeComparison.compare(previous: .failure(.noDataset), current: new)
        #expect(first.collection("cities")?.notCompared == "first run, no previous dataset")
        #expect(first.summaryLine(dataset: "cities") == "cities: changes not compared: first run, no previous dataset")
        #expect(first.entries.isEmpty && first.differs)

        let older = ChangeComparison.compare(previous: .failure(.noSnapshot), current: new)
        #expect(older.collection("cities")?.notCompared?.contains("has no snapshot.ndjson") == true)

        // The previous dataset has no field to match by.
        let noID = try Self.cities([#"["Hurzuf","UA"]"#], key: "null", fields: #"["name","country"]"#)
        #expect(
            ChangeComparison.compare(previous: .success(noID), current: new).collection("cities")?.notCompared
                == "the previous dataset has no field id to match records by")
        // No key at all.
        #expect(
            ChangeComparison.compare(previous: .success(new), current: noID).collection("cities")?.notCompared?
                .hasPrefix("no key to match records by") == true)
        // A key that is not unique, on either side.
        let twice = try Self.cities([#"[1,"Hurzuf","UA"]"#, #"[1,"Gurzuf","UA"]"#])
        #expect(
            ChangeComparison.compare(previous: .success(twice), current: new).collection("cities")?.notCompared
                == "its key (id) is not unique in the previous dataset: records 1 and 2 share 1")
        #expect(
            ChangeComparison.compare(previous: .success(new), current: twice).collection("cities")?.notCompared
                == "its key (id) is not unique in the new dataset: records 1 and 2 share 1")
        // A collection the previous dataset did not have.
        let other = try Self.snapshot([
            Self.head, #"{"collection":"towns","key":["id"],"fields":["id"],"records":1}"#, "[1]",
        ])
        #expect(
            ChangeComparison.compare(previous: .success(other), current: new).collection("cities")?.notCompared
                == "not in the previous dataset")
    }

    @Test func severalCollectionsInOneSummaryLine() throws {
        func snapshot(shops: [String], stats: [String]) throws -> Snapshot {
            try Self.snapshot(
                [Self.head, #"{"collection":"shops","key":["id"],"fields":["id","name"],"records":\#(shops.count)}"#]
                    + shops + [#"{"collection":"stats","key":null,"fields":["n"],"records":\#(stats.count)}"#] + stats)
        }
        let old = try snapshot(shops: [#"["a","A"]"#, #"["b","B"]"#], stats: ["[2]"])
        // Statistics without a key are equal when their lines are; otherwise not compared.
        let same = try snapshot(shops: [#"["a","A2"]"#, #"["c","C"]"#], stats: ["[2]"])
        #expect(
            ChangeComparison.compare(previous: .success(old), current: same).summaryLine(dataset: "honey")
                == "honey: shops +1 \u{2212}1 ~1, stats +0 \u{2212}0 ~0 since the last run")
        let other = try snapshot(shops: [#"["a","A"]"#, #"["b","B"]"#], stats: ["[3]"])
        #expect(
            ChangeComparison.compare(previous: .success(old), current: other).summaryLine(dataset: "honey")
                == "honey: shops +0 \u{2212}0 ~0 since the last run; stats not compared: no key to match records by (give its source an 'id', or declare one under 'changes:')"
        )
        // A collection the new dataset no longer has.
        let shopsOnly = try Self.snapshot([
            Self.head, #"{"collection":"shops","key":["id"],"fields":["id","name"],"records":1}"#, #"["a","A"]"#,
        ])
        let dropped = ChangeComparison.compare(previous: .success(old), current: shopsOnly)
        #expect(dropped.collection("stats")?.notCompared == "not in the new dataset (1 record before)")
        #expect(dropped.differs)
    }

    @Test func damagedSnapshotsAreRefusedWithTheLine() throws {
        #expect(throws: Snapshot.ReadError.self) { try Self.snapshot(["{}"]) }
        do {
            _ = try Self.snapshot([
                Self.head, #"{"collection":"cities","key":["id"],"fields":["id"],"records":3}"#, "[1]",
            ])
            Issue.record("a truncated snapshot was read")
        } catch let error as Snapshot.ReadError {
            #expect(error.description == "line 3: cities ends after 1 of 3 records")
        }
        // A record line that is not JSON makes the collection not compared, naming the record.
        let old = try Self.cities([#"[1,"Hurzuf""#])
        let new = try Self.cities([#"[1,"Hurzuf","UA"]"#])
        #expect(
            ChangeComparison.compare(previous: .success(old), current: new).collection("cities")?.notCompared
                == "record 1 of cities in the previous dataset's snapshot.ndjson cannot be read")
    }
}

/// Matching records of two snapshots in mostly the same order (as a rerun sorts them):
/// records moved, renamed, added and removed give what a plain dictionary by key gives.
@Suite("Changes: matching records by key")
struct ChangeMatchingTests {
    /// `+added −removed ~changed` and the keys of the changed records, by a dictionary of
    /// each side's key text: what the comparison must find, however it finds it.
    static func expected(_ old: [(Int, String)], _ new: [(Int, String)]) -> (String, [Int]) {
        let before = Dictionary(uniqueKeysWithValues: old)
        let after = Set(new.map(\.0))
        let added = new.filter { before[$0.0] == nil }.count
        let removed = old.filter { !after.contains($0.0) }.count
        let changed = new.filter { before[$0.0] != nil && before[$0.0] != $0.1 }.map(\.0)
        return ("+\(added) \u{2212}\(removed) ~\(changed.count)", changed)
    }

    static func snapshot(_ records: [(Int, String)]) throws -> Snapshot {
        try ChangeComparisonTests.cities(records.map { #"[\#($0.0),"\#($0.1)","XX"]"# })
    }

    @Test(arguments: 0..<6)
    func movedRenamedAddedAndRemovedRecords(seed: UInt64) throws {
        var random = SplitMix64(state: seed)
        var nextID = 100_000
        let old = (0..<2_000).map { (1_000 + $0 * 3, "City \($0)") }
        var new = old
        for _ in 0..<(40 + Int(seed) * 40) {
            let index = Int(random.next() % UInt64(new.count))
            switch random.next() % 4 {
            case 0: new[index].1 += " Nord"  // renamed in place
            case 1:  // renamed and moved, as a sort by name moves it
                var city = new.remove(at: index)
                city.1 = "Moved \(city.1)"
                new.insert(city, at: Int(random.next() % UInt64(new.count)))
            case 2: new.remove(at: index)
            default:
                new.insert((nextID, "New \(nextID)"), at: index)
                nextID += 1
            }
        }
        let changes = ChangeComparison.compare(
            previous: .success(try Self.snapshot(old)), current: try Self.snapshot(new))
        let cities = try #require(changes.collection("cities"))
        let (counts, changed) = Self.expected(old, new)
        #expect(cities.compared && cities.counts == counts)
        // Changed records in the new order, each with its previous and new name.
        let entries = changes.entries.filter { $0.kind == .changed }
        #expect(entries.map(\.keyText) == changed.map { "id=\($0)" })
        let names = Dictionary(uniqueKeysWithValues: old)
        for entry in entries {
            let id = Int(entry.key[0].json)!
            #expect(entry.fields.map(\.field) == ["name"] && entry.fields[0].old == "\"\(names[id]!)\"")
        }
    }

    @Test func aNewKeyHeldTwiceIsFoundWhereverTheRecordsAre() throws {
        let old = try ChangeComparisonTests.cities([#"[1,"A","XX"]"#, #"[2,"B","XX"]"#, #"[3,"C","XX"]"#])
        func reason(_ records: [String]) throws -> String? {
            ChangeComparison.compare(previous: .success(old), current: try ChangeComparisonTests.cities(records))
                .collection("cities")?.notCompared
        }
        // Both equal to a previous line; one equal, one changed; both added.
        #expect(
            try reason([#"[1,"A","XX"]"#, #"[2,"B","XX"]"#, #"[2,"B","XX"]"#])
                == "its key (id) is not unique in the new dataset: records 2 and 3 share 2")
        #expect(
            try reason([#"[3,"C2","XX"]"#, #"[1,"A","XX"]"#, #"[3,"C","XX"]"#])
                == "its key (id) is not unique in the new dataset: records 1 and 3 share 3")
        // The second one met again in order after the run of records went back.
        #expect(
            try reason([#"[3,"C","XX"]"#, #"[1,"A","XX"]"#, #"[2,"B","XX"]"#, #"[3,"C","XX"]"#])
                == "its key (id) is not unique in the new dataset: records 1 and 4 share 3")
        #expect(
            try reason([#"[1,"A","XX"]"#, #"[7,"G","XX"]"#, #"[8,"H","XX"]"#, #"[7,"G2","XX"]"#])
                == "its key (id) is not unique in the new dataset: records 2 and 4 share 7")
        // A key that cannot be read is said first, even after a repeated key.
        #expect(
            try reason([#"[7,"G","XX"]"#, #"[7,"G","XX"]"#, #"[,"X","XX"]"#])
                == "record 3 of cities in the new dataset's snapshot.ndjson cannot be read")
    }
}

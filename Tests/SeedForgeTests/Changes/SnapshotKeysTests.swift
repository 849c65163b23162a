import Foundation
import Testing

@testable import SeedForge

/// The key index the comparison finds previous records with: keys as the snapshot's JSON
/// text, found from another snapshot's bytes, whatever the hash does.
@Suite("Changes: snapshot keys")
struct SnapshotKeysTests {
    static func snapshot(key: String, fields: String, _ records: [String]) throws -> Snapshot {
        try ChangeComparisonTests.snapshot(
            [
                ChangeComparisonTests.head,
                #"{"collection":"cities","key":\#(key),"fields":\#(fields),"records":\#(records.count)}"#,
            ] + records)
    }

    /// The real hash, or one that makes every key collide (the same value for all).
    static func hash(_ colliding: Bool, _ value: UInt64) -> (UnsafeBufferPointer<UInt8>, Range<Int>) -> UInt64 {
        if colliding { return { _, _ in value } }
        return { bytes, range in SnapshotKeys.fieldHash(bytes, range) }
    }

    /// The key values of `line` of `snapshot`'s first collection, as the comparison reads them.
    static func values(_ snapshot: Snapshot, _ line: Int) throws -> [Range<Int>] {
        try snapshot.values(of: snapshot.collections[0].lines[line])
    }

    /// Every key of `old` is found from the same values in `new` (another file, other
    /// positions), and nothing else is.
    @Test(arguments: [false, true])
    func keysOfSeveralTypesFoundFromAnotherSnapshot(colliding: Bool) throws {
        let records = [
            #"[707860,"Hurzuf"]"#, #"[-3,"Minus"]"#, #"[1.5,"Half"]"#, #"[1,"One"]"#, #"["1","Text one"]"#,
            #"[1.0e3,"Exponent"]"#, #"["Z\u00fcrich","Escaped"]"#, #"["Zürich","Plain"]"#, #"[true,"Yes"]"#,
            #"[null,"None"]"#, #"[[1,2],"Array"]"#, #"[{"a":1},"Object"]"#,
        ]
        let old = try Self.snapshot(key: #"["id"]"#, fields: #"["id","name"]"#, records)
        var keys = SnapshotKeys(bytes: old.bytes, width: 1, hashField: Self.hash(colliding, 42))
        for line in records.indices { #expect(keys.insert(line, key: try Self.values(old, line), at: [0]) == nil) }
        #expect(keys.count == records.count)
        // The same keys in the reverse order, with other names, padded so that no offset agrees.
        let new = try Self.snapshot(
            key: #"["id"]"#, fields: #"["id","name","x"]"#,
            records.reversed().map { "[ " + $0.dropFirst().dropLast() + ",0]" })
        for line in records.indices {
            let found = keys.find(key: try Self.values(new, line), at: [0], in: new.bytes)
            #expect(found == records.count - 1 - line, "\(records[records.count - 1 - line])")
        }
        // Keys it does not have: the same value written otherwise is another key.
        let missing = try Self.snapshot(
            key: #"["id"]"#, fields: #"["id"]"#, ["[707861]", "[1e3]", "[\"Zurich\"]", "[false]", "[[1]]", "[15]"])
        for line in missing.collections[0].lines.indices {
            #expect(keys.find(key: try Self.values(missing, line), at: [0], in: missing.bytes) == nil)
        }
    }

    @Test(arguments: [false, true])
    func compositeKeysCompareFieldByField(colliding: Bool) throws {
        let old = try Self.snapshot(
            key: #"["a","b"]"#, fields: #"["n","a","b"]"#,
            [#"[1,"ab","c"]"#, #"[2,"a","bc"]"#, #"[3,"abc",""]"#, #"[4,"c","ab"]"#])
        var keys = SnapshotKeys(bytes: old.bytes, width: 2, hashField: Self.hash(colliding, 7))
        for line in 0..<4 { #expect(keys.insert(line, key: try Self.values(old, line), at: [1, 2]) == nil) }
        // The same key again, in another record: refused, naming the record that has it.
        let again = try Self.snapshot(key: #"["a","b"]"#, fields: #"["a","b"]"#, [#"["a","bc"]"#, #"["c","ab"]"#])
        #expect(keys.find(key: try Self.values(again, 0), at: [0, 1], in: again.bytes) == 1)
        #expect(keys.find(key: try Self.values(again, 1), at: [0, 1], in: again.bytes) == 3)
        #expect(keys.insert(9, key: try Self.values(old, 1), at: [1, 2]) == 1)
        #expect(keys.count == 4)
    }

    /// Past its first slots the table grows and still finds every key; a constant hash
    /// (every key in one probe chain) finds them all the same.
    @Test(arguments: [false, true])
    func growsAndFindsEveryKey(colliding: Bool) throws {
        let count = colliding ? 300 : 5_000
        let records = (0..<count).map { #"[\#($0 * 7919 % 100_003),"City \#($0)"]"# }
        let old = try Self.snapshot(key: #"["id"]"#, fields: #"["id","name"]"#, records)
        var keys = SnapshotKeys(bytes: old.bytes, width: 1, hashField: Self.hash(colliding, 0))
        for line in records.indices { #expect(keys.insert(line, key: try Self.values(old, line), at: [0]) == nil) }
        var wrong = 0
        for line in records.indices where keys.find(key: try Self.values(old, line), at: [0], in: old.bytes) != line {
            wrong += 1
        }
        #expect(wrong == 0)
        let absent = try Self.snapshot(key: #"["id"]"#, fields: #"["id"]"#, ["[100003]", "[-1]", "[7919.0]"])
        for line in 0..<3 { #expect(keys.find(key: try Self.values(absent, line), at: [0], in: absent.bytes) == nil) }
    }

    /// A whole collection: the first repeated key is reported with the record that had it,
    /// but a line whose key cannot be read is reported first, wherever it is.
    @Test func aCollectionsDuplicatesAndUnreadableKeys() throws {
        let twice = try Self.snapshot(
            key: #"["id"]"#, fields: #"["id","name"]"#,
            [#"[1,"A"]"#, #"[2,"B"]"#, #"[3,"C"]"#, #"[2,"D"]"#, #"[1,"E"]"#])
        do {
            _ = try SnapshotKeys(twice.collections[0], of: twice, positions: [0])
            Issue.record("a repeated key was taken")
        } catch let duplicate as SnapshotKeys.Duplicate {
            #expect((duplicate.first, duplicate.second) == (1, 3))
        }
        let broken = try Self.snapshot(
            key: #"["id"]"#, fields: #"["id","name"]"#, [#"[1,"A"]"#, #"[1,"B"]"#, #"[2,"C"]"#, #"[,"D"]"#])
        do {
            _ = try SnapshotKeys(broken.collections[0], of: broken, positions: [0])
            Issue.record("an unreadable key was taken")
        } catch let unreadable as SnapshotKeys.Unreadable {
            #expect(unreadable.record == 3)
        }
        // Only the key is read: a damaged value after it is the comparison's to find.
        let tail = try Self.snapshot(key: #"["id"]"#, fields: #"["id","name"]"#, [#"[1,"A"]"#, #"[2,"B"#])
        #expect(try SnapshotKeys(tail.collections[0], of: tail, positions: [0]).count == 2)
    }
}

import Foundation

/// Compares two snapshots collection by collection, matching records by the new
/// snapshot's key: a record whose key only the new dataset has is added, one only the
/// previous has is removed, one in both whose values differ is changed (with the fields
/// that differ). Equal lines are equal records (the snapshot writer is deterministic), and
/// the two snapshots are mostly in the same order, so most records cost one byte
/// comparison with the previous record after the last one matched; the others are read up
/// to their key and looked up among the previous keys (`SnapshotKeys`, the only keys
/// hashed). Fields are looked at only where lines differ. A field one dataset does not
/// have counts as null there.
///
/// What cannot be compared without guessing is said, not counted: a first run, a
/// collection without a key, a previous dataset without the key's fields, a key that is
/// not unique, a collection only one dataset has. (A collection whose records are the
/// same lines in the same order is equal, with or without a key.)
public enum ChangeComparison {
    public static func compare(previous: Result<Snapshot, Snapshot.Unavailable>, current: Snapshot) -> Changes {
        var changes = Changes(collections: [], entries: [])
        for collection in current.collections {
            let key = collection.key ?? []
            guard case .success(let old) = previous else {
                if case .failure(let why) = previous {
                    changes.collections.append(
                        CollectionChanges(collection: collection.name, key: key, notCompared: why.reason))
                }
                continue
            }
            do {
                let (counts, entries) = try compare(collection, of: current, with: old)
                changes.collections.append(counts)
                changes.entries += entries
            } catch let reason as NotCompared {
                changes.collections.append(
                    CollectionChanges(collection: collection.name, key: key, notCompared: reason.reason))
            } catch {
                changes.collections.append(
                    CollectionChanges(collection: collection.name, key: key, notCompared: "\(error)"))
            }
        }
        // A collection the new dataset no longer has (after a definition change).
        if case .success(let old) = previous {
            for collection in old.collections where current.collection(collection.name) == nil {
                changes.collections.append(
                    CollectionChanges(
                        collection: collection.name, key: collection.key ?? [],
                        notCompared: "not in the new dataset (\(Budgets.records(collection.lines.count)) before)"))
            }
        }
        return changes
    }

    struct NotCompared: Error {
        let reason: String

        init(reason: String) { self.reason = reason }

        /// Record `number` of a side's snapshot cannot be read.
        static func unreadable(_ number: Int, of collection: String, side: String) -> NotCompared {
            NotCompared(
                reason: "record \(number + 1) of \(collection) in the \(side) dataset's \(Snapshot.file) cannot be read"
            )
        }

        /// Records `first` and `second` of a side's snapshot share a key (shown as the first's
        /// values at the key's positions).
        static func notUnique(
            _ first: Int, _ second: Int, of collection: Snapshot.Collection, in snapshot: Snapshot, side: String,
            key positions: [Int], named keyNames: String
        ) -> NotCompared {
            let ranges = (try? snapshot.values(of: collection.lines[first])) ?? []
            let shared = positions.map { $0 < ranges.count ? text(ranges[$0], in: snapshot.bytes) : "?" }
            return NotCompared(
                reason:
                    "its key (\(keyNames)) is not unique in the \(side) dataset: records \(first + 1) and \(second + 1) share \(shared.joined(separator: ", "))"
            )
        }
    }

    static func text(_ range: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// Values of every record line of a collection, checked against its field count.
    static func values(
        _ line: Range<Int>, number: Int, of collection: Snapshot.Collection, in snapshot: Snapshot, side: String
    ) throws -> [Range<Int>] {
        guard let ranges = try? snapshot.values(of: line), ranges.count == collection.fields.count else {
            throw NotCompared.unreadable(number, of: collection.name, side: side)
        }
        return ranges
    }

    /// Whether two collections' record lines are byte for byte the same, read in order
    /// with the pages of both files released behind (a rerun's two snapshots of millions
    /// of records are not brought into memory whole).
    static func sameLines(
        _ old: Snapshot.Collection, of previous: Snapshot, _ new: Snapshot.Collection, of current: Snapshot
    ) -> Bool {
        guard let first = old.lines.first, let firstNew = new.lines.first else {
            return old.lines.count == new.lines.count
        }
        var oldPass = FileBytes.ReleasingPass(previous.storage, from: first.lowerBound, step: Snapshot.releaseStep)
        var newPass = FileBytes.ReleasingPass(
            current.storage, from: firstNew.lowerBound, step: Snapshot.releaseStep)
        defer {
            oldPass.end(at: old.lines.last!.upperBound)
            newPass.end(at: new.lines.last!.upperBound)
        }
        for (a, b) in zip(old.lines, new.lines) {
            guard
                UnsafeBufferPointer(rebasing: previous.bytes[a]).sameBytes(
                    as: UnsafeBufferPointer(rebasing: current.bytes[b]))
            else { return false }
            oldPass.reached(a.upperBound)
            newPass.reached(b.upperBound)
        }
        return true
    }

    static func compare(
        _ collection: Snapshot.Collection, of current: Snapshot, with previous: Snapshot
    ) throws -> (CollectionChanges, [ChangeEntry]) {
        let name = collection.name
        if let old = previous.collection(name), old.fields == collection.fields,
            old.lines.count == collection.lines.count,
            sameLines(old, of: previous, collection, of: current)
        {
            // The same records in the same order: equal, key or no key.
            var counts = CollectionChanges(collection: name, key: collection.key ?? [])
            (counts.previous, counts.current) = (old.lines.count, collection.lines.count)
            return (counts, [])
        }
        guard let key = collection.key else {
            throw NotCompared(
                reason: "no key to match records by (give its source an 'id', or declare one under 'changes:')")
        }
        guard let old = previous.collection(name) else {
            throw NotCompared(reason: "not in the previous dataset")
        }
        let keyNames = key.joined(separator: ", ")
        let oldKey = try key.map { field in
            guard let position = old.fields.firstIndex(of: field) else {
                throw NotCompared(reason: "the previous dataset has no field \(field) to match records by")
            }
            return position
        }
        let newKey = key.map { collection.fields.firstIndex(of: $0)! }
        let oldBytes = previous.bytes
        let newBytes = current.bytes
        // The previous keys, or why they cannot be used (the new ones are checked as they are matched).
        let oldKeys: SnapshotKeys
        do {
            oldKeys = try SnapshotKeys(old, of: previous, positions: oldKey)
        } catch let twice as SnapshotKeys.Duplicate {
            throw NotCompared.notUnique(
                twice.first, twice.second, of: old, in: previous, side: "previous", key: oldKey, named: keyNames)
        } catch let unreadable as SnapshotKeys.Unreadable {
            throw NotCompared.unreadable(unreadable.record, of: old.name, side: "previous")
        }

        var counts = CollectionChanges(collection: name, key: key)
        counts.previous = old.lines.count
        counts.current = collection.lines.count
        let sameFields = old.fields == collection.fields
        let (matches, differing) = try match(
            collection, of: current, with: old, keys: oldKeys, key: newKey, sameFields: sameFields, keyNames: keyNames)

        var entries: [ChangeEntry] = []
        // Where each new field sits in the previous records (nil: they did not have it).
        let oldPosition = collection.fields.map { old.fields.firstIndex(of: $0) }
        let dropped = old.fields.indices.filter { !collection.fields.contains(old.fields[$0]) }
        func record(
            _ ranges: [Range<Int>], _ fields: [String], _ bytes: UnsafeBufferPointer<UInt8>
        )
            -> [ChangeEntry.FieldValue]
        {
            zip(fields, ranges).map { ChangeEntry.FieldValue(field: $0, json: text($1, in: bytes)) }
        }
        for (number, oldNumber) in differing {
            let line = collection.lines[number]
            let newRanges = try values(line, number: number, of: collection, in: current, side: "new")
            let keyValues = newKey.map {
                ChangeEntry.FieldValue(field: collection.fields[$0], json: text(newRanges[$0], in: newBytes))
            }
            guard let oldNumber else {
                counts.added += 1
                entries.append(
                    ChangeEntry(
                        collection: name, kind: .added, key: keyValues,
                        record: record(newRanges, collection.fields, newBytes), fields: []))
                continue
            }
            let oldLine = old.lines[oldNumber]
            let oldRanges = try values(oldLine, number: oldNumber, of: old, in: previous, side: "previous")
            var fields: [ChangeEntry.FieldChange] = []
            for (position, field) in collection.fields.enumerated() {
                let new = text(newRanges[position], in: newBytes)
                let was = oldPosition[position].map { text(oldRanges[$0], in: oldBytes) } ?? "null"
                if was != new { fields.append(ChangeEntry.FieldChange(field: field, old: was, new: new)) }
            }
            for position in dropped {
                let was = text(oldRanges[position], in: oldBytes)
                if was != "null" {
                    fields.append(ChangeEntry.FieldChange(field: old.fields[position], old: was, new: "null"))
                }
            }
            if fields.isEmpty { continue }
            counts.changed += 1
            entries.append(ChangeEntry(collection: name, kind: .changed, key: keyValues, record: [], fields: fields))
        }
        for (number, line) in old.lines.enumerated() where matches[number] == 0 {
            let ranges = try values(line, number: number, of: old, in: previous, side: "previous")
            counts.removed += 1
            entries.append(
                ChangeEntry(
                    collection: name, kind: .removed,
                    key: oldKey.map {
                        ChangeEntry.FieldValue(field: old.fields[$0], json: text(ranges[$0], in: oldBytes))
                    },
                    record: record(ranges, old.fields, oldBytes), fields: []))
        }
        return (counts, entries)
    }

    /// Each new record's previous record, by key: for each previous record the number + 1
    /// of the new record with its key (0: none, removed), and the new records whose lines
    /// differ from their previous record's (nil: none, added), in the new order.
    ///
    /// Both datasets are mostly in the same order, so each record is first tried against
    /// the previous record after the last one matched: equal lines (with equal fields) are
    /// equal keys, and since the previous keys are unique that record is the one with the
    /// key; nothing is parsed or hashed. Other records are read up to their key and looked
    /// up in the previous keys. A new key held twice is found as a previous record matched
    /// twice, or, among added records, in a table of their keys; the first such pair is
    /// reported once every key was read (as an unreadable key is reported first).
    static func match(
        _ collection: Snapshot.Collection, of current: Snapshot, with old: Snapshot.Collection,
        keys oldKeys: SnapshotKeys, key positions: [Int], sameFields: Bool, keyNames: String
    ) throws -> (matches: [Int32], differing: [(new: Int, old: Int?)]) {
        let newBytes = current.bytes
        let oldBytes = oldKeys.bytes
        var matches = [Int32](repeating: 0, count: old.lines.count)
        var differing: [(new: Int, old: Int?)] = []
        var added = SnapshotKeys(bytes: newBytes, width: positions.count)
        var duplicate: (first: Int, second: Int)?
        var found = [Range<Int>](repeating: 0..<0, count: (positions.max() ?? 0) + 1)
        var next = 0
        for (number, line) in collection.lines.enumerated() {
            if sameFields && next < old.lines.count
                && UnsafeBufferPointer(rebasing: oldBytes[old.lines[next]]).sameBytes(
                    as: UnsafeBufferPointer(rebasing: newBytes[line]))
            {
                if matches[next] == 0 {
                    matches[next] = Int32(number + 1)
                } else if duplicate == nil {
                    duplicate = (Int(matches[next]) - 1, number)
                }
                next += 1
                continue
            }
            guard (try? current.values(of: line, upTo: found.count - 1, into: &found)) == true else {
                throw NotCompared.unreadable(number, of: collection.name, side: "new")
            }
            guard let oldNumber = oldKeys.find(key: found, at: positions, in: newBytes) else {
                if let first = added.insert(number, key: found, at: positions), duplicate == nil {
                    duplicate = (first, number)
                }
                differing.append((number, nil))
                continue
            }
            if matches[oldNumber] == 0 {
                matches[oldNumber] = Int32(number + 1)
            } else if duplicate == nil {
                duplicate = (Int(matches[oldNumber]) - 1, number)
            }
            next = oldNumber + 1
            if !(sameFields
                && UnsafeBufferPointer(rebasing: oldBytes[old.lines[oldNumber]]).sameBytes(
                    as: UnsafeBufferPointer(rebasing: newBytes[line])))
            {
                differing.append((number, oldNumber))
            }
        }
        if let duplicate {
            throw NotCompared.notUnique(
                duplicate.first, duplicate.second, of: collection, in: current, side: "new", key: positions,
                named: keyNames)
        }
        return (matches, differing)
    }
}

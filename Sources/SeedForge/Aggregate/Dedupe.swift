import Foundation

/// `aggregate: dedupe`: removes records that share a key, keeping one declared winner per
/// key. Every removed record goes to the duplicates log with the winner's id, so nothing
/// disappears unaccounted. Records whose key holds a null are never merged.
///
/// With `within`, records sharing a key are duplicates only when they also lie within a
/// distance of each other (the same folded name within 100 m): taken in order of
/// preference (the `keep` rule), each record merges into the first kept record within
/// the distance, or is kept itself. So every removed record is within the distance of
/// its winner, and a chain of places 80 m apart is not collapsed into one.
///
/// With `across: F`, records are duplicates only when F differs between them: places from
/// an API merge into the app's places, but two of the app's own places (the same beach on
/// two trips) are never merged with each other.
///
/// With `fill`, the winner takes the listed fields from the records it replaces where its
/// own are null (the app's place gains the API's public rating), and the duplicates log
/// says which fields each removed record gave.
public struct Dedupe: Step {
    public enum Keep: String, CaseIterable, Sendable {
        case first, last, lowest, highest
    }

    public static let spec = KindSpec(
        stage: .aggregate, name: "dedupe",
        summary: "Remove records sharing a key; keep a declared winner; log every removal with the winner's id.",
        keys: [
            CommonKeys.collection,
            KeySpec("by", required: true, "the key field, or a list of fields forming the key"),
            KeySpec(
                "keep", "the winner: first (default) or last in input order, or lowest / highest value of 'keep-by'"),
            KeySpec("keep-by", "the field compared when keep is lowest or highest"),
            KeySpec("fold", "compare text keys case- and diacritic-insensitively (default false)"),
            KeySpec(
                "precision", "round numbers in the key to this many decimals (e.g. 2 for coordinates about 1 km apart)"),
            KeySpec(
                "across",
                "a field that must differ between duplicates (e.g. source: an API's place merges into the app's, two of the app's own never merge)"
            ),
            KeySpec(
                "fill",
                "fields the winner takes from a removed duplicate where its own value is null (first removed record in input order first); logged as 'filled'"
            ),
            KeySpec(
                "within",
                "{latitude: F, longitude: G, km: D}: records sharing the key are duplicates only within D km of each other (great-circle)"
            ),
        ],
        details: #"""
            Integral floats match integers (`7.0` and `7`). Records with a null key are never merged,
            and a record whose `keep-by` is null never wins over one with a value. Every removed
            record is logged in `duplicates.ndjson` with the winner's id.

            With `within`, such as the same folded name within 100 m (`km: 0.1`): in order of the
            `keep` preference, each record merges into the first kept record within the distance, or
            is kept itself: every removed record is within D of its winner, and a chain of places each
            80 m from the next is not collapsed into one. Records without a position on the globe are
            never merged, and one `coordinates` warning says how many there were. The coordinates must
            be numeric fields, not also in `by`. Each record is compared with the kept records of its
            own key, so the cost grows with the square of the largest group sharing one key, not with
            the collection.

            With `across: source` a place from an API merges into the app's own place while two of the
            app's own places (the same beach saved on two trips) are never merged; the field may not
            be in `by`. With `within` or `across`, records merge greedily in keep order as described
            for `within`. With `fill`, each removed record's entry in `duplicates.ndjson` lists the
            fields it gave under `filled`: the app's own place, kept over the same place found through
            an API, gains the API's public rating.
            """#,
        example: """
            - aggregate: dedupe
              collection: reviews
              by: id
              keep: first
            """)

    public let collection: CollectionID
    let by: [FieldID]
    let keep: Keep
    let keepBy: FieldID?
    let fold: Bool
    let precision: DecimalPlaces?
    let within: (latitude: FieldID, longitude: FieldID, km: Double)?
    let fill: [FieldID]
    let across: FieldID?

    public init(config: ConfigMap, plan: PipelinePlan) throws {
        collection = try plan.collection(config)
        by = try plan.fields(config, key: "by", in: collection)
        keep = try config.choice("keep", Keep.self, choices: Keep.allCases) ?? .first
        fill = try config["fill"] == nil ? [] : plan.fields(config, key: "fill", in: collection)
        across = try config["across"] == nil ? nil : plan.field(config, key: "across", in: collection)
        if let across, by.contains(across) {
            throw config["across"]!.error(
                "'\(plan.schema(collection)[across].name)' is part of the key 'by', so it never differs between duplicates"
            )
        }
        if let shared = fill.first(where: by.contains) {
            throw config["fill"]!.error(
                "'\(plan.schema(collection)[shared].name)' is part of the key 'by': duplicates already agree on it")
        }
        fold = try config.bool("fold") ?? false
        precision = try config.decimalPlaces("precision")
        if let node = config["within"] {
            let map = try node.mapping("'within' of \(config.what)")
            let unknown = map.unknownKeys(allowed: ["latitude", "longitude", "km"])
            if let error = unknown.first { throw error }
            let latitude = try plan.field(map, key: "latitude", in: collection)
            let longitude = try plan.field(map, key: "longitude", in: collection)
            let kmNode = try map.require("km")
            let km = try kmNode.number("'km' of 'within'")
            guard km >= 0 else { throw kmNode.error("'km' of 'within' must be 0 or more, got \(km)") }
            if by.contains(latitude) || by.contains(longitude) {
                throw node.error("the coordinates of 'within' must not also be in 'by': the distance compares them")
            }
            if latitude == longitude { throw node.error("'latitude' and 'longitude' of 'within' name the same field") }
            let schema = plan.schema(collection)
            for (key, id) in [("latitude", latitude), ("longitude", longitude)] {
                try Coordinates.requireNumeric(id, in: schema, at: map[key]!)
            }
            within = (latitude, longitude, km)
        } else {
            within = nil
        }
        switch keep {
        case .lowest, .highest:
            guard config["keep-by"] != nil else {
                throw config.error("keep: \(keep.rawValue) needs 'keep-by', the field to compare")
            }
            keepBy = try plan.field(config, key: "keep-by", in: collection)
        case .first, .last:
            if let node = config["keep-by"] { throw node.error("'keep-by' applies only to keep: lowest or highest") }
            keepBy = nil
        }
    }

    /// Whether a sharded run's shards can begin this dedupe on their own records
    /// (`ShardDedupe`): when a group's winner is its best record in one total order, not
    /// chosen greedily (`within`, `across`) and not given fields by the losers (`fill`).
    var beginsInShards: Bool { within == nil && across == nil && fill.isEmpty }

    /// Its keys can be gathered from the records as ingest spills them, when it is the step
    /// after ingest's record-by-record steps (`IngestSpillPass`): past the limit it reads
    /// them as sorted runs (`runSpilled`), unless `within` or `across` hold it whole.
    var spillKeyEntry: ((Record, inout ByteKey, inout [UInt8]) -> Bool)? {
        guard within == nil, across == nil else { return nil }
        return runEntry
    }

    /// The parts of the record's key as compared (nil when a part is null).
    func keyParts(of record: Record) -> [Value]? {
        var parts: [Value] = []
        parts.reserveCapacity(by.count)
        for field in by {
            guard let part = keyPart(record[field]) else { return nil }
            parts.append(part)
        }
        return parts
    }

    /// One part of a key as compared: folded text, rounded numbers; nil for null.
    func keyPart(_ value: Value) -> Value? {
        Self.keyPart(value, fold: fold, precision: precision)
    }

    static func keyPart(_ value: Value, fold: Bool, precision: DecimalPlaces?) -> Value? {
        switch value {
        case .null: return nil
        case .string(let text) where fold: return .string(Collation.key(text))
        case .int, .double, .decimal:
            if let precision, let number = value.number { return Value.double(precision.round(number)).joinKey }
            return value.joinKey
        default: return value
        }
    }

    /// The record's key as bytes, for hashing (nil when a part is null).
    func key(of record: Record) -> ByteKey? {
        var bytes = ByteKey()
        return appendKey(of: record, to: &bytes) ? bytes : nil
    }

    /// Appends the record's key to `bytes` part by part; false when a part is null (no key).
    func appendKey(of record: Record, to bytes: inout ByteKey) -> Bool {
        for field in by {
            // Unfolded ASCII text, read in place: the same bytes as its `Value`'s.
            if !fold, bytes.appendASCIIText(of: record, field, text: .exact) { continue }
            guard let part = keyPart(record[field]) else { return false }
            bytes.append(part, text: .exact)
        }
        return true
    }

    /// The key as written in the duplicates log: the value, or an array of the parts.
    func loggedKey(of record: Record) -> Value {
        let parts = keyParts(of: record) ?? []
        return parts.count == 1 ? parts[0] : .array(parts)
    }

    /// The keep-by value of a record as a comparable key; nil when null.
    func preferenceKey(_ record: Record) -> ByteKey? {
        guard let keepBy, !record[keepBy].isNull else { return nil }
        var key = ByteKey()
        key.append(record[keepBy], text: .exact)
        return key
    }

    /// Whether record `candidate` should replace record `current` as the winner, given
    /// their keep-by keys (only asked for when keep is lowest or highest).
    func beats(_ candidate: Int, _ current: Int, _ preference: (Int) -> ByteKey?) -> Bool {
        switch keep {
        case .first: return false
        case .last: return true
        case .lowest, .highest:
            // A record without a keep-by value never wins over one with a value.
            guard let a = preference(candidate) else { return false }
            guard let b = preference(current) else { return true }
            return keep == .lowest ? a < b : b < a
        }
    }

    public func run(_ state: RunState) throws {
        if within != nil || across != nil { return try runGrouped(state) }
        let store = state.store(collection)
        if store.isSpilled { return try runSpilled(store, state) }
        // Taken out of the store, so that the losers are removed by moving the others,
        // not copying them (see `Reorder`).
        var records = store.take()
        let winnerOf = winners(in: records, threads: state.threads)
        remove(winnerOf, from: &records, state)
    }

    /// The winner of each duplicate of the records (loser position → winner position).
    func winners(in records: [Record], threads: Threads) -> [Int: Int] {
        let (hashes, present) = keyHashes(of: records, threads: threads)
        return winners(in: records, hashes: hashes, present: present)
    }

    /// The hash of each record's key and whether it has one (`KeyTable.keyHashes`): a
    /// shard's partial carries its survivors' so that the finish does not make their keys
    /// again (`ShardDedupe`).
    func keyHashes(of records: [Record], threads: Threads) -> (hashes: [UInt64], present: [Bool]) {
        KeyTable.keyHashes(count: records.count, threads: threads) { index, key in
            appendKey(of: records[index], to: &key)
        }
    }

    /// `winners(in:threads:)` with the keys' hashes made already (`keyHashes`).
    func winners(in records: [Record], hashes: [UInt64], present: [Bool]) -> [Int: Int] {
        // Each record learns the first record sharing its key, which stands for the group
        // (keys hashed, not held). Records are then taken in input order, as before.
        let groupOf = KeyTable.firstWithEqualKey(hashes: hashes, present: present) { index, key in
            appendKey(of: records[index], to: &key)
        }
        // Keep-by keys are made only for records whose key collides: most records have none.
        return winners(groupOf) { preferenceKey(records[$0]) }
    }

    /// A collection spilled to disk: its keys (with the keep-by keys) are written as
    /// sorted runs and merged, so records sharing a key arrive together, in input order,
    /// without every key in memory; each group's winner is chosen as in memory. Then only
    /// the duplicates and their winners are decoded, to log them, and the losers are
    /// dropped from the store, left out by whatever reads its batches next
    /// (`RecordStore.drop`); when a winner took `fill` fields, a last pass drops them from
    /// the spilled batches as bytes and encodes the filled winners again, leaving batches
    /// without a duplicate as they are (when the collection is a sort's sorted runs, the
    /// runs are merged and every batch is written once: see `RecordStore.rewriteEncoded`).
    func runSpilled(_ store: RecordStore, _ state: RunState) throws {
        var reading = by
        if keep == .lowest || keep == .highest, let keepBy { reading.append(keepBy) }
        // Each duplicate's position and its winner's, in the losers' order: 16 bytes a
        // duplicate, where a dictionary took about 130 (1M cities: 19,617 duplicates, 2.6 MB).
        var losers: [(loser: Int, winner: Int)]
        // The bytes of the duplicates and their winners, when the merge that found them kept
        // them (per part of the merge).
        var foundRecords: [FoundRecords]?
        if let found = try winnersInSortedRuns(store, state) {
            losers = found.flatMap(\.losers)
            let kept = found.compactMap(\.records)
            if kept.count == found.count { foundRecords = kept }
        } else {
            // Gathered as ingest spilled the records, when this dedupe follows its first steps.
            let runs =
                try store.takeSpillKeys(step: state.phase - 1)
                ?? SortedRuns.write(store, space: state.spill, threads: state.threads, reading: reading) {
                    runEntry($0, &$1, &$2)
                }
            // Cut by key ranges, merged on every core (one merge through a heap kept one thread
            // busy and the others idle): a key's records all meet in one part, so the winners
            // are the same however the runs are cut.
            let parts = try SortedRuns.Merge.parts(runs, count: state.threads.count)
            losers = state.threads.run(parts.count, { winners(merging: parts[$0]) }).flatMap { $0 }
        }
        losers.sort { $0.loser < $1.loser }
        guard !losers.isEmpty else { return }
        // The duplicates and their winners, kept as their spilled bytes (the rest skipped)
        // and decoded as the log takes them: decoded records held for all of them took
        // about 250 bytes each at the peak (5M cities under 16 MiB: 97,413 duplicates and
        // their winners), their bytes about 60.
        let codec = state.spill.codec()
        let wanted = Self.merged(losers.map(\.loser), losers.map(\.winner).sorted())
        var kept: [UInt8] = []
        var keptStarts: [Int] = []
        keptStarts.reserveCapacity(wanted.count + 1)
        if let runs = store.runsGatheredAtSpill {
            // The records were spilled as the next sort's runs (`SortedAtSpill`): kept by the
            // merge that found the duplicates, or else picked by input position in one read of
            // the runs (side by side); then put in position order.
            var picked: [FoundRecords]
            if let foundRecords {
                picked = foundRecords
            } else {
                let positions = PositionSet(wanted)
                picked = state.threads.run(runs.spans.count) { run in
                    var found = FoundRecords()
                    SortedRuns.pick(positions, from: runs, run: run) { entry in
                        found.add(entry.payload, position: entry.position)
                    }
                    return found
                }
            }
            // Each part's records in one buffer, put in position order by sorting plain
            // numbers: sorted as (position, bytes) pairs, each move retained and released an
            // array, about a second on one thread at 20M cities (a million picks).
            var order = picked.indices.flatMap { run in
                picked[run].entries.map { (position: $0.position, run: run, start: $0.start, end: $0.end) }
            }
            order.sort { $0.position < $1.position }
            precondition(order.map(\.position) == wanted, "a duplicate missing from the runs gathered at spill")
            kept.reserveCapacity(picked.reduce(0) { $0 + $1.bytes.count })
            for entry in order {
                keptStarts.append(kept.count)
                picked[entry.run].bytes.withUnsafeBufferPointer {
                    kept.append(contentsOf: UnsafeBufferPointer(rebasing: $0[entry.start..<entry.end]))
                }
            }
        } else {
            var next = 0
            try store.forEachEncodedBatch { bytes, count, first in
                guard next < wanted.count, wanted[next] < first + count else { return }
                let starts = RecordCodec.starts(bytes, count: count)
                while next < wanted.count, wanted[next] < first + count {
                    let index = wanted[next] - first
                    keptStarts.append(kept.count)
                    kept.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[starts[index]..<starts[index + 1]]))
                    next += 1
                }
            }
        }
        keptStarts.append(kept.count)
        let width = store.width
        let filled = kept.withUnsafeBufferPointer { kept in
            settle(
                losers,
                record: { position in
                    let index = wanted.partitionPoint { $0 < position }
                    var reader = RecordCodec.Reader(kept, at: keptStarts[index])
                    return codec.decode(&reader, width: width)
                }, state, pastLimit: true)
        }
        kept = []
        guard !filled.isEmpty else {
            // No record changes: the losers are left out by the next reader of the batches
            // (at 5M cities under 512 MiB, a pass that wrote 4.9M records, 300 MB, again).
            return try store.drop(losers.map(\.loser))
        }
        // Every record that leaves its batch (a loser) or changes in it (a filled winner).
        let touched = Self.merged(losers.map(\.loser), filled.keys.sorted())
        var next = 0
        try store.rewriteEncoded { bytes, count, first in
            guard next < touched.count, touched[next] < first + count else { return nil }
            let starts = RecordCodec.starts(bytes, count: count)
            var kept: [UInt8] = []
            kept.reserveCapacity(bytes.count)
            var keptCount = 0
            var from = 0
            while next < touched.count, touched[next] < first + count {
                let index = touched[next] - first
                next += 1
                kept.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[starts[from]..<starts[index]]))
                keptCount += index - from
                from = index + 1
                if let record = filled[first + index], !Self.contains(losers, first + index) {
                    codec.encode(record, into: &kept)
                    keptCount += 1
                }
            }
            kept.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[starts[from]..<starts[count]]))
            keptCount += count - from
            return (bytes: kept, count: keptCount)
        }
    }

    /// How many of a sort's first `keys` bring this dedupe's groups together, when the
    /// first record of each group in the sort's order is the group's winner; nil when they
    /// do not. Then the sort's runs gathered at spill give the winners
    /// (`winnersInSortedRuns`), and no runs of this dedupe's own keys are gathered.
    ///
    /// Records sharing this dedupe's key share the bytes of every sort key on one of its
    /// fields when those are text compared exactly here (not folded; equal text gives equal
    /// bytes under any collation; a number may be rounded here or compared by value there),
    /// so a group lies inside one run of equal bytes of the sort's first keys on its fields.
    /// Inside a group those keys tie, so its records come in the order of the sort's other
    /// keys, ties in input order: none for `keep: first`, or `keep-by` alone (ascending for
    /// `lowest`, descending for `highest`: nulls last either way, and a record without a
    /// keep-by value never wins here either), a number as here (`ByteKey`).
    func blockKeys(sortedBy keys: [Sort.Key], schema: Schema) -> Int? {
        guard within == nil, across == nil, fill.isEmpty, !fold else { return nil }
        var leading = 0
        while leading < keys.count, by.contains(keys[leading].field) { leading += 1 }
        guard leading > 0 else { return nil }
        for key in keys where by.contains(key.field) {
            guard schema[key.field].type == .string, !key.timestamp else { return nil }
        }
        let others = keys.filter { !by.contains($0.field) }
        switch keep {
        case .first:
            guard others.isEmpty else { return nil }
        case .lowest, .highest:
            guard others.count == 1, let keepBy, others[0].field == keepBy, !others[0].timestamp,
                others[0].descending == (keep == .highest),
                schema[keepBy].type == .integer || schema[keepBy].type == .number
            else { return nil }
        case .last:
            return nil
        }
        return leading
    }

    /// The winner of each duplicate, found in the sort's runs gathered at spill when this
    /// dedupe's groups come together in them (`blockKeys`): the runs are merged in the
    /// sort's order (cut into parts on every core at boundaries of the sort's first keys),
    /// and within each run of entries sharing those keys' bytes (text, which dedupe compares
    /// as they hold it), the first entry of each key of the other fields of `by` wins (past
    /// an eighth of the memory limit, at least 1 MiB, a run's keys go to disk: `LargeBlock`).
    /// Per part of the merge, with the bytes of its duplicates and their winners when it
    /// kept them (see `SortedPart.records`). Nil when the collection is not held so.
    func winnersInSortedRuns(_ store: RecordStore, _ state: RunState) throws -> [FoundDuplicates]? {
        guard let keys = try store.takeRunsGatheredAtSpill(),
            let leading = blockKeys(sortedBy: keys, schema: state.schemas[loaded: collection]),
            let runs = store.runsGatheredAtSpill
        else { return nil }
        let parts = Array(keys[..<leading])
        let rest = by.filter { field in !parts.contains { $0.field == field } }
        let fieldsRead = by.reduce(0) { max($0, $1.index + 1) }
        let budget = max(1 << 20, state.spill.limit / 8)
        let merges = try SortedRuns.Merge.parts(runs, count: state.threads.count) { key in
            Array(key[..<parts.withUnsafeBufferPointer { Self.prefix(of: key, parts: $0) }.length])
        }
        // Read through locals and buffers: `self` used in the loop was copied (its arrays
        // retained and released) for every entry, most of the merge's samples.
        let precision = precision
        let found = parts.withUnsafeBufferPointer { parts in
            rest.withUnsafeBufferPointer { rest in
                state.threads.run(merges.count) { part in
                    Self.winners(
                        merging: merges[part], parts: parts, rest: rest, fieldsRead: fieldsRead, precision: precision,
                        budget: budget, space: state.spill)
                }
            }
        }
        return try found.map { try $0.get() }
    }

    /// Records' bytes one after another, each with its input position, in the order added.
    struct FoundRecords {
        var bytes: [UInt8] = []
        var entries: [(position: Int, start: Int, end: Int)] = []

        mutating func add(_ record: UnsafeBufferPointer<UInt8>, position: Int) {
            entries.append((position, bytes.count, bytes.count + record.count))
            bytes.append(contentsOf: record)
        }

        mutating func removeAll() {
            bytes.removeAll(keepingCapacity: true)
            entries.removeAll(keepingCapacity: true)
        }
    }

    /// What one part of the merge of the sort's runs found: each duplicate's position and
    /// its winner's, and the bytes of both (nil when a run of equal first keys went past
    /// the budget: then they are picked from the runs).
    struct FoundDuplicates {
        var losers: [(loser: Int, winner: Int)]
        var records: FoundRecords?
    }

    /// The winners in one part of the merge of the sort's runs (see `winnersInSortedRuns`).
    /// A run of equal first keys whose keys pass `budget` gathers the rest of its keys as
    /// sorted runs on disk (`LargeBlock`), so what dedupe holds stays bounded.
    private static func winners(
        merging merge: SortedRuns.Merge, parts: UnsafeBufferPointer<Sort.Key>, rest: UnsafeBufferPointer<FieldID>,
        fieldsRead: Int, precision: DecimalPlaces?, budget: Int, space: SpillSpace
    ) -> Result<FoundDuplicates, Error> {
        Result {
            var part = SortedPart(budget: budget, space: space)
            // The part's state through a pointer: captured as variables by the merge's
            // closure, each array was boxed, retained and released, and checked for exclusive
            // access at run time for every entry (with the block's generic comparison, about
            // a fifth of this pass's samples at 20M cities under 2 GiB).
            try withUnsafeMutablePointer(to: &part) { part in
                func add(_ payload: UnsafeBufferPointer<UInt8>, position: Int) throws {
                    part.pointee.key.removeAll()
                    guard
                        appendKey(
                            encoded: payload, fields: rest, fieldsRead: fieldsRead, precision: precision,
                            to: &part.pointee.key)
                    else { return }
                    try part.pointee.add(payload, position: position)
                }
                _ = try merge.next(.max) { entry in
                    let (length, null) = Self.prefix(of: entry.key, parts: parts)
                    // A null among the first keys: no key, never merged.
                    guard !null else { return }
                    if try part.pointee.enter(UnsafeBufferPointer(rebasing: entry.key[..<length])) {
                        // A block's first entry can only be a duplicate's winner: its key is
                        // read when a second entry joins it. Most blocks hold one entry (four
                        // in five records of the 1M dump), whose record is never decoded.
                        part.pointee.first.removeAll(keepingCapacity: true)
                        part.pointee.first.append(contentsOf: entry.payload)
                        part.pointee.firstPosition = entry.position
                        return
                    }
                    if part.pointee.firstPosition >= 0 {
                        let position = part.pointee.firstPosition
                        part.pointee.firstPosition = -1
                        var first: [UInt8] = []
                        swap(&first, &part.pointee.first)
                        defer { swap(&first, &part.pointee.first) }
                        try first.withUnsafeBufferPointer { try add($0, position: position) }
                    }
                    try add(entry.payload, position: entry.position)
                }
            }
            try part.end()
            return FoundDuplicates(losers: part.losers, records: part.records)
        }
    }

    /// What one part of the merge of the sort's runs holds while its entries pass: the
    /// current run of equal first keys (`block`), the keys met in it, and the duplicates
    /// found so far.
    private struct SortedPart {
        let budget: Int
        let space: SpillSpace
        var groups = BlockGroups()
        var large: LargeBlock?
        var block: [UInt8] = []
        /// The current entry's key: its fields past the first keys.
        var key = ByteKey()
        /// The block's first entry while it is the only one: its record's bytes and its
        /// position (-1: none waiting).
        var first: [UInt8] = []
        var firstPosition = -1
        var losers: [(loser: Int, winner: Int)] = []
        /// The bytes of every duplicate and winner found, for the log (nil once a run of
        /// equal first keys held more than the budget with its keys: they are picked from
        /// the runs then). Kept here, the runs were not read whole a second time for them
        /// (at 20M cities, 2.35 GB for 388,537 duplicates and their winners).
        var records: FoundRecords? = FoundRecords()
        /// The current block's entries with a key (all of them once it holds two), and
        /// their duplicates' and winners' positions.
        var blockRecords = FoundRecords()
        var blockWanted: [Int] = []

        init(budget: Int, space: SpillSpace) {
            self.budget = budget
            self.space = space
        }

        /// Starts a new run of equal first keys unless `prefix` is the current one's: true
        /// when it does.
        mutating func enter(_ prefix: UnsafeBufferPointer<UInt8>) throws -> Bool {
            if block.withUnsafeBufferPointer({ $0.sameBytes(as: prefix) }) { return false }
            try end()
            block.removeAll(keepingCapacity: true)
            block.append(contentsOf: prefix)
            groups.removeAll()
            return true
        }

        /// The entry at `position`, whose key is `key` and record `payload`.
        mutating func add(_ payload: UnsafeBufferPointer<UInt8>, position: Int) throws {
            if let large {
                return try key.bytes.withUnsafeBufferPointer { try large.add($0, position: position) }
            }
            if records != nil {
                blockRecords.add(payload, position: position)
                if groups.bytes + blockRecords.bytes.count > budget {
                    // The records are picked from the runs instead.
                    records = nil
                    blockRecords.removeAll()
                    blockWanted.removeAll()
                }
            }
            if let winner = key.bytes.withUnsafeBufferPointer({ groups.winner(of: $0, position: position) }) {
                losers.append((position, winner))
                if records != nil {
                    blockWanted.append(winner)
                    blockWanted.append(position)
                }
            } else if groups.bytes > budget {
                // The groups so far hold distinct keys, and the block's later entries
                // come after them.
                let moved = LargeBlock(space: space)
                for (key, winner) in groups.all {
                    try key.withUnsafeBufferPointer { try moved.add($0, position: winner) }
                }
                groups.removeAll()
                large = moved
            }
        }

        /// Ends the current run of equal first keys.
        mutating func end() throws {
            firstPosition = -1
            if !blockWanted.isEmpty, records != nil {
                // A winner of several duplicates is kept once.
                blockWanted.sort()
                for entry in blockRecords.entries {
                    let at = blockWanted.partitionPoint { $0 < entry.position }
                    guard at < blockWanted.count, blockWanted[at] == entry.position else { continue }
                    blockRecords.bytes.withUnsafeBufferPointer {
                        records!.add(
                            UnsafeBufferPointer(rebasing: $0[entry.start..<entry.end]), position: entry.position)
                    }
                }
            }
            if !blockRecords.entries.isEmpty { blockRecords.removeAll() }
            if !blockWanted.isEmpty { blockWanted.removeAll(keepingCapacity: true) }
            if let done = large {
                losers += try done.losers()
                large = nil
            }
        }
    }

    /// The keys of one run of equal first keys past dedupe's budget, gathered as sorted runs
    /// of each key with its entry's input position as payload, in the run's order (ties keep
    /// it), and merged at the run's end: each key's first entry wins.
    private final class LargeBlock {
        let gathering: SortedRuns.Gathering
        private var keys: [ByteKey] = []
        private var positions: [Int] = []

        init(space: SpillSpace) { gathering = SortedRuns.Gathering(space: space, threads: 1) }

        func add(_ key: UnsafeBufferPointer<UInt8>, position: Int) throws {
            keys.append(ByteKey(bytes: Array(key)))
            positions.append(position)
            if keys.count >= 4_096 { try flush() }
        }

        private func flush() throws {
            let keys = keys
            let positions = positions
            try gathering.add(count: keys.count) { index, key, payload in
                key = keys[index]
                withUnsafeBytes(of: UInt64(positions[index]).bigEndian) { payload.append(contentsOf: $0) }
                return true
            }
            self.keys.removeAll(keepingCapacity: true)
            self.positions.removeAll(keepingCapacity: true)
        }

        /// Each duplicate's position and its winner's.
        func losers() throws -> [(loser: Int, winner: Int)] {
            try flush()
            let merge = SortedRuns.Merge(try gathering.finish())
            var losers: [(loser: Int, winner: Int)] = []
            var current: [UInt8] = []
            var winner = -1
            _ = merge.next(.max) { entry in
                let position = Int(entry.payload.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
                if winner >= 0, current.elementsEqual(entry.key) {
                    losers.append((position, winner))
                } else {
                    current = Array(entry.key)
                    winner = position
                }
            }
            return losers
        }
    }

    /// Where the key parts `parts` (a sort's first keys) end in a sort key, and whether one
    /// of them is null. A part is a rank byte, then: a number 16 bytes; text its bytes ended
    /// by 0x00 0x00 (0x00 inside escaped as 0x00 0xFF), twice when folded (the collation
    /// key, then the text); a boolean 1 byte; another value its compact JSON as text; null
    /// (0xF0) nothing. A descending part has every byte inverted but null's (`ByteKey`).
    static func prefix(
        of key: UnsafeBufferPointer<UInt8>, parts: UnsafeBufferPointer<Sort.Key>
    ) -> (length: Int, null: Bool) {
        var at = 0
        var null = false
        func skipText(_ flip: UInt8) {
            while true {
                precondition(at + 1 < key.count, "a sort key cut short")
                if key[at] ^ flip == 0 {
                    at += 2
                    if key[at - 1] ^ flip == 0 { return }
                } else {
                    at += 1
                }
            }
        }
        for part in parts {
            precondition(at < key.count, "a sort key cut short")
            if key[at] == 0xF0 {
                null = true
                at += 1
                continue
            }
            let flip: UInt8 = part.descending ? 0xFF : 0
            let rank = key[at] ^ flip
            at += 1
            switch rank {
            case 0x10: at += 16
            case 0x20:
                skipText(flip)
                if part.collation == .folded { skipText(flip) }
            case 0x30: at += 1
            case 0x40: skipText(flip)
            default: preconditionFailure("a sort key part of rank \(rank)")
            }
        }
        return (at, null)
    }

    /// Appends the key parts of `fields` of the record whose spilled bytes are `record` (as
    /// `appendKey(of:to:)` writes them for the record decoded, text not folded); false when
    /// one is null.
    static func appendKey(
        encoded record: UnsafeBufferPointer<UInt8>, fields: UnsafeBufferPointer<FieldID>, fieldsRead: Int,
        precision: DecimalPlaces?, to key: inout ByteKey
    ) -> Bool {
        RecordCodec.withValueOffsets(of: record, count: fieldsRead) { offsets in
            for field in fields {
                let offset = offsets[field.index]
                guard offset >= 0 else { return false }
                var reader = RecordCodec.Reader(record, at: offset)
                guard let part = keyPart(reader.value(), fold: false, precision: precision) else { return false }
                key.append(part, text: .exact)
            }
            return true
        }
    }

    /// The keys met in one run of entries sharing the sort's first keys, each with the
    /// position of its first entry (its winner): compared one by one while few, as most such
    /// runs hold one or two entries, through a dictionary past that.
    private struct BlockGroups {
        private var keys: [UInt8] = []
        private var entries: [(end: Int, winner: Int)] = []
        private var index: [ByteKey: Int] = [:]
        static let linear = 16

        /// Every key met, with its winner.
        var all: [([UInt8], Int)] {
            if !index.isEmpty { return index.map { ($0.key.bytes, $0.value) } }
            var start = 0
            return entries.map { entry in
                defer { start = entry.end }
                return (Array(keys[start..<entry.end]), entry.winner)
            }
        }

        /// Bytes held for the keys.
        var bytes: Int { keys.count + entries.count * 16 + index.count * 64 }

        mutating func removeAll() {
            keys.removeAll(keepingCapacity: true)
            entries.removeAll(keepingCapacity: true)
            if !index.isEmpty { index.removeAll() }
        }

        /// The winner of `key`'s group when one was met; nil after noting `position` as the
        /// first of a new group.
        mutating func winner(of key: UnsafeBufferPointer<UInt8>, position: Int) -> Int? {
            if entries.count < Self.linear {
                var start = 0
                for entry in entries {
                    if entry.end - start == key.count,
                        keys.withUnsafeBufferPointer({
                            UnsafeBufferPointer(rebasing: $0[start..<entry.end]).sameBytes(as: key)
                        })
                    {
                        return entry.winner
                    }
                    start = entry.end
                }
                keys.append(contentsOf: key)
                entries.append((keys.count, position))
                if entries.count == Self.linear {
                    var start = 0
                    for entry in entries {
                        index[ByteKey(bytes: Array(keys[start..<entry.end]))] = entry.winner
                        start = entry.end
                    }
                }
                return nil
            }
            let wrapped = ByteKey(bytes: Array(key))
            if let winner = index[wrapped] { return winner }
            index[wrapped] = position
            return nil
        }
    }

    /// The winner of each duplicate among the entries of a merge of sorted key runs, in
    /// which records sharing a key arrive together, in input order; each group's winner is
    /// chosen as in memory.
    func winners(merging merge: SortedRuns.Merge) -> [(loser: Int, winner: Int)] {
        var grouping = Grouping()
        // Through a pointer: the merge's closure captured the group's arrays as variables,
        // each use checked for exclusive access at run time (with the merge's heap, about a
        // tenth of dedupe's samples at 5M cities under 512 MiB).
        withUnsafeMutablePointer(to: &grouping) { grouping in
            _ = merge.next(.max) { entry in
                if !grouping.pointee.holds(entry.key) { grouping.pointee.settle(self, startingWith: entry.key) }
                grouping.pointee.add(entry)
            }
        }
        grouping.settle(self, startingWith: nil)
        return grouping.winnerOf
    }

    /// The records sharing the current key as a merge hands them over: their positions, and
    /// their keep-by keys one after another (an empty one: none). Most groups hold one
    /// record, so a keep-by key is made only for a group of two or more.
    private struct Grouping {
        var winnerOf: [(loser: Int, winner: Int)] = []
        var group: [(position: Int, preferenceEnd: Int)] = []
        var preferences: [UInt8] = []
        var groupKey: [UInt8] = []

        /// Whether `key` is the current group's.
        func holds(_ key: UnsafeBufferPointer<UInt8>) -> Bool {
            !group.isEmpty && groupKey.withUnsafeBufferPointer { $0.sameBytes(as: key) }
        }

        mutating func add(_ entry: SortedRuns.Entry) {
            preferences.append(contentsOf: entry.payload)
            group.append((entry.position, preferences.count))
        }

        /// Chooses the current group's winner (as in memory), and starts a group of `key`.
        mutating func settle(_ dedupe: Dedupe, startingWith key: UnsafeBufferPointer<UInt8>?) {
            if group.count > 1 {
                let keys: [ByteKey?] = group.indices.map { index in
                    let from = index == 0 ? 0 : group[index - 1].preferenceEnd
                    let to = group[index].preferenceEnd
                    return from == to ? nil : ByteKey(bytes: Array(preferences[from..<to]))
                }
                let chosen = dedupe.winners(Array(repeating: 0, count: group.count)) { keys[$0] }
                for (loser, winner) in chosen { winnerOf.append((group[loser].position, group[winner].position)) }
            }
            group.removeAll(keepingCapacity: true)
            preferences.removeAll(keepingCapacity: true)
            groupKey.removeAll(keepingCapacity: true)
            if let key { groupKey.append(contentsOf: key) }
        }
    }

    /// A record's entry in the sorted runs of a spilled dedupe: its key, and as payload its
    /// keep-by key when the winner is ranked by it; false when the key has a null part.
    func runEntry(_ record: Record, _ key: inout ByteKey, _ payload: inout [UInt8]) -> Bool {
        guard appendKey(of: record, to: &key) else { return false }
        if keep == .lowest || keep == .highest, let preference = preferenceKey(record) {
            payload += preference.bytes
        }
        return true
    }

    /// The winner of each duplicate (loser position → winner position), taking records in
    /// input order: the first of a group stands until a later one `beats` it.
    func winners(_ groupOf: [Int], _ preference: (Int) -> ByteKey?) -> [Int: Int] {
        var winner = [Int](repeating: -1, count: groupOf.count)
        var losers: [(index: Int, group: Int)] = []
        for index in groupOf.indices {
            let group = groupOf[index]
            guard group >= 0 else { continue }
            if group == index {
                winner[group] = index
            } else if beats(index, winner[group], preference) {
                losers.append((winner[group], group))
                winner[group] = index
            } else {
                losers.append((index, group))
            }
        }
        return Dictionary(uniqueKeysWithValues: losers.map { ($0.index, winner[$0.group]) })
    }

    /// Dedupe by key and distance, or across a field: see the type's comment. Each record,
    /// in order of preference, merges into the first kept record of its key that is close
    /// enough and differs in `across`, or is kept itself.
    func runGrouped(_ state: RunState) throws {
        let records = state.records(collection)
        // Ranking sorts compare each record several times: make its keep-by key once.
        let preferenceKeys: [ByteKey?] =
            keep == .lowest || keep == .highest
            ? Parallel.map(records, threads: state.threads) { preferenceKey($0) } : []
        let preference: (Int) -> ByteKey? = { preferenceKeys[$0] }
        let keys = Parallel.map(records, threads: state.threads) { key(of: $0) }
        typealias Member = (index: Int, point: (latitude: Double, longitude: Double))
        var groups: [ByteKey: [Member]] = [:]
        var unplaced = 0
        for (index, record) in records.enumerated() {
            guard let key = keys[index] else { continue }
            guard let within else {
                groups[key, default: []].append((index, (0, 0)))
                continue
            }
            guard let point = Coordinates.of(record, within.latitude, within.longitude) else {
                unplaced += 1
                continue
            }
            groups[key, default: []].append((index, point))
        }
        if let within, unplaced > 0 {
            let schema = state.schemas[loaded: collection]
            state.warn(
                Finding(
                    rule: .coordinates, severity: .warning,
                    message:
                        "\(unplaced) \(collection) records have a key but no position on the globe (\(schema[within.latitude].name), \(schema[within.longitude].name) missing or out of range), so they are never merged"
                ),
                record: nil, in: collection, step: "aggregate: dedupe")
        }
        var winnerOf: [Int: Int] = [:]
        var distances: [Int: Double] = [:]
        for members in groups.values where members.count > 1 {
            // Most preferred first; ties keep input order.
            var ranked = members
            switch keep {
            case .first: break
            case .last: ranked.reverse()
            case .lowest, .highest:
                ranked.sort { a, b in
                    if beats(b.index, a.index, preference) { return false }
                    if beats(a.index, b.index, preference) { return true }
                    return a.index < b.index
                }
            }
            var kept: [Member] = []
            // With `across`, the values each kept record stands for (its own and those it
            // absorbed): it never absorbs a second record of a value it holds already.
            var held: [Int: Set<Value>] = [:]
            for member in ranked {
                var found: (index: Int, km: Double?)?
                let side = across.map { records[member.index][$0].joinKey }
                for candidate in kept {
                    if let side, held[candidate.index]?.contains(side) == true { continue }
                    guard let within else {
                        found = (candidate.index, nil)
                        break
                    }
                    let km = SphereIndex.distanceKm(candidate.point, member.point)
                    if km <= within.km {
                        found = (candidate.index, km)
                        break
                    }
                }
                if let found {
                    winnerOf[member.index] = found.index
                    distances[member.index] = found.km
                    if let side { held[found.index, default: []].insert(side) }
                } else {
                    kept.append(member)
                    if let side { held[member.index] = [side] }
                }
            }
        }
        var kept = records
        remove(winnerOf, from: &kept, state, distances: distances)
    }

    /// Moves each loser (record index → its winner's index) to the duplicates log, in input
    /// order, and keeps the rest.
    func remove(
        _ winnerOf: [Int: Int], from records: inout [Record], _ state: RunState, distances: [Int: Double] = [:]
    ) {
        let filled = settle(winnerOf, record: { records[$0] }, state, distances: distances)
        for (index, record) in filled { records[index] = record }
        var lost = [Bool](repeating: false, count: records.count)
        for index in winnerOf.keys { lost[index] = true }
        Reorder.remove(&records) { lost[$0] }
        state.setRecords(collection, records)
    }

    /// Logs each loser with its winner, in input order, the winner taking the `fill` fields
    /// it lacks; returns the winners that took some (position → filled record).
    /// `pastLimit`: the collection is spilled, and the log may render its duplicates as they
    /// come (see `SideLog`).
    func settle(
        _ winnerOf: [Int: Int], record: (Int) -> Record, _ state: RunState, distances: [Int: Double] = [:]
    ) -> [Int: Record] {
        settle(winnerOf.keys.sorted().map { ($0, winnerOf[$0]!) }, record: record, state, distances: distances)
    }

    /// `settle` with each loser's position and its winner's, in the losers' order.
    func settle(
        _ losers: [(loser: Int, winner: Int)], record: (Int) -> Record, _ state: RunState,
        distances: [Int: Double] = [:], pastLimit: Bool = false
    ) -> [Int: Record] {
        let step = "aggregate: dedupe"
        func distanceKm(_ index: Int) -> Double? { distances[index].map { (1000 * $0).rounded() / 1000 } }
        if fill.isEmpty {
            // No winner changes: each duplicate's entry is made on every core (its records
            // decoded, the winner's line found), a batch at a time, and logged in order.
            var first = 0
            while first < losers.count {
                let batch = losers[first..<min(first + SideOutputs.batch, losers.count)]
                let made = Parallel.chunks(batch.count, threads: state.threads, minimumChunk: 512) { range in
                    range.map { offset in
                        let (index, winnerIndex) = batch[batch.startIndex + offset]
                        let loser = record(index)
                        return state.duplicate(
                            loser, in: collection, winner: record(winnerIndex), key: loggedKey(of: loser), step: step,
                            distanceKm: distanceKm(index))
                    }
                }
                for duplicate in made.joined() { state.log(duplicate, pastLimit: pastLimit) }
                first += batch.count
            }
            return [:]
        }
        var changed: [Int: Record] = [:]
        let schema = state.schemas[loaded: collection]
        for (index, winnerIndex) in losers {
            let loser = record(index)
            var winner = changed[winnerIndex] ?? record(winnerIndex)
            var filled: [String] = []
            for field in fill where winner[field].isNull && !loser[field].isNull {
                winner[field] = loser[field]
                filled.append(schema[field].name)
            }
            if !filled.isEmpty { changed[winnerIndex] = winner }
            state.removeDuplicate(
                loser, in: collection, winner: winner, key: loggedKey(of: loser), step: step, filled: filled,
                distanceKm: distanceKm(index), pastLimit: pastLimit)
        }
        return changed
    }

    /// The union of two ascending lists of positions, ascending, each position once.
    static func merged(_ a: [Int], _ b: [Int]) -> [Int] {
        var union: [Int] = []
        union.reserveCapacity(a.count + b.count)
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            let next = j == b.count || (i < a.count && a[i] <= b[j]) ? a[i] : b[j]
            if union.last != next { union.append(next) }
            if i < a.count, a[i] == next { i += 1 }
            if j < b.count, b[j] == next { j += 1 }
        }
        return union
    }

    /// Whether `position` is a loser of `losers` (in the losers' order).
    static func contains(_ losers: [(loser: Int, winner: Int)], _ position: Int) -> Bool {
        let index = losers.partitionPoint { $0.loser < position }
        return index < losers.count && losers[index].loser == position
    }
}

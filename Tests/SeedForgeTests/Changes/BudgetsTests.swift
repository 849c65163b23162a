import Foundation
import Testing

@testable import SeedForge

/// `budgets:` and `changes:` are checked when a pipeline is loaded (so `lint` reports
/// them with their YAML line), and budgets measure what they say.
@Suite("Changes: budgets and keys")
struct BudgetsTests {
    static let pipeline = """
        name: demo
        sources:
          shops: {kind: json, path: data.json, id: id, fields: {id: string, name: string, city: string}}
          towns: {kind: json, path: data.json, reference: true, fields: {name: string}}
        steps:
          - aggregate: group-stats
            collection: shops
            by: city
            into: perCity
            metrics: {shops: count}
        outputs:
          - {file: shops.json, collection: shops}
          - {file: stats.json, collection: perCity}

        """

    static func errors(_ tail: String) -> [String] {
        Harness.definitionErrors(pipeline + tail).map { "\($0.line):\($0.column): \($0.message)" }
    }

    @Test func wellFormedBudgetsAndKeysLoad() throws {
        let loaded = try Harness.load(
            Self.pipeline + """
                budgets:
                  shops: {min-records: 2, max-removed: 3, max-removed-fraction: 0.1, max-added-fraction: 2, max-changed-fraction: 0.5}
                  shops.json: {max-bytes: 30MiB}
                changes:
                  shops: {key: [name, city]}
                """, files: ["data.json": "[]"])
        let shops = try #require(loaded.budgets.collections.first)
        #expect(shops.collection == "shops" && shops.minRecords == 2 && shops.maxRemoved == 3)
        #expect(shops.maxRemovedFraction == 0.1 && shops.maxAddedFraction == 2 && shops.maxChangedFraction == 0.5)
        #expect(loaded.budgets.outputs.map(\.file) == ["shops.json"] && loaded.budgets.outputs[0].maxBytes == 30 << 20)
        let schema = loaded.schemas["shops"]!
        #expect(loaded.changeKeys["shops"]?.map { schema[$0].name } == ["name", "city"])
        // Group statistics are matched by their groups; reference data is not compared.
        #expect(loaded.changeKeys["perCity"]?.map { loaded.schemas["perCity"]![$0].name } == ["city"])
        #expect(loaded.changeKeys["towns"] == nil)
        // Without `changes:`, a source's id.
        let plain = try Harness.load(Self.pipeline, files: ["data.json": "[]"])
        #expect(plain.changeKeys["shops"]?.map { schema[$0].name } == ["id"])
    }

    @Test func mistakesAreDefinitionErrorsWithTheirLine() {
        #expect(
            Self.errors("budgets:\n  shops: {min-record: 2}\n")
                == ["15:11: unknown key 'min-record' in budgets of collection 'shops'; did you mean 'min-records'?"])
        #expect(
            Self.errors("budgets:\n  shops: {max-removed-fraction: 1.5, max-removed: -1}\n") == [
                "15:33: 'max-removed-fraction' of 'shops' must be a fraction between 0 and 1, found '1.5'",
                "15:51: 'max-removed' of 'shops' must be a whole number, 0 or more, found '-1'",
            ])
        #expect(
            Self.errors("budgets:\n  shop: {min-records: 2}\n")
                == [
                    "15:3: 'shop' under 'budgets' is neither a collection of the dataset nor an output file; did you mean 'shops'?; collections: shops, perCity; outputs: shops.json, stats.json"
                ])
        #expect(
            Self.errors("budgets:\n  towns: {min-records: 2}\n")
                == [
                    "15:3: collection 'towns' is not written into the dataset (reference data, or appended to another collection): budgets apply to the collections an output writes whole"
                ])
        #expect(
            Self.errors("budgets:\n  shops.json: {max-bytes: lots}\n")
                == [
                    "15:27: 'max-bytes' of output 'shops.json' must be a size such as 30MiB, 2GiB or 1000000 (bytes), found 'lots'"
                ])
        #expect(
            Self.errors("budgets:\n  shops.json: {min-records: 2}\n")
                == ["15:16: unknown key 'min-records' in budgets of output 'shops.json'; valid keys: max-bytes"])
        #expect(Self.errors("budgets: [shops]\n") == ["14:10: 'budgets' must be a mapping (key: value), found a list"])
        #expect(
            Self.errors("changes:\n  shops: {key: [name, town]}\n")
                == ["15:16: 'key' of 'shops' names unknown field 'town'"])
        #expect(
            Self.errors("changes:\n  towns: {key: name}\n")
                == ["15:3: 'towns' under 'changes' is not a collection the dataset holds; collections: shops, perCity"])
        #expect(Self.errors("changes:\n  shops: {keys: name}\n").first?.contains("did you mean 'key'?") == true)
    }

    @Test func budgetsMeasureCountsChangesAndBytes() throws {
        var budgets = Budgets()
        budgets.collections = [
            Budgets.CollectionBudget(
                collection: "cities", minRecords: 3, maxRemoved: 1, maxRemovedFraction: 0.25, maxAddedFraction: 0.5,
                maxChangedFraction: 0.5)
        ]
        budgets.outputs = [Budgets.OutputBudget(file: "cities.json", maxBytes: 100)]
        var cities = CollectionChanges(collection: "cities", key: ["id"])
        (cities.previous, cities.current, cities.added, cities.removed, cities.changed) = (4, 2, 0, 2, 1)
        let accounting = [
            CollectionAccount(
                collection: "cities", read: 2, received: 0, emitted: 2, reference: 0, rejected: 0, duplicates: 0,
                appended: 0, written: true)
        ]
        let checks = budgets.check(
            accounting: accounting, changes: Changes(collections: [cities], entries: []),
            outputBytes: ["cities.json": 101])
        #expect(
            checks.map(\.description) == [
                "min-records of cities: limit 3, value 2 (2 records in the new dataset, at least 3 wanted)",
                "max-removed of cities: limit 1, value 2 (2 records removed)",
                "max-removed-fraction of cities: limit 0.25, value 0.5 (2 of 4 previous records removed)",
                "max-added-fraction of cities: limit 0.5, value 0 (0 of 4 previous records added)",
                "max-changed-fraction of cities: limit 0.5, value 0.25 (1 of 4 previous records changed)",
                "max-bytes of cities.json: limit 100, value 101 (101 bytes written, at most 100 bytes)",
            ])
        #expect(checks.map(\.exceeded) == [true, true, true, false, false, true])

        // Not compared (a first run): change budgets are not checked, and say why.
        let first = budgets.check(
            accounting: accounting,
            changes: Changes(
                collections: [CollectionChanges(collection: "cities", key: ["id"], notCompared: "first run")],
                entries: []), outputBytes: [:])
        #expect(first.filter(\.exceeded).map(\.budget) == ["min-records"])
        #expect(first[1].description == "max-removed of cities: limit 1, value none (not checked: first run)")
        #expect(!first[1].checked)
    }
}

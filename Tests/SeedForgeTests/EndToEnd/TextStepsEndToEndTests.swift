import Foundation
import Testing

@testable import SeedForge

/// The three steps through the real CLI on `Fixtures/text-steps/`.
@Suite("End to end: text steps", .serialized)
struct TextStepsEndToEndTests {
    @Test func labelsAddressLinesAndStrippedNames() throws {
        let dir = try TempDir()
        let result = try CLI.run(["run", "Fixtures/text-steps/shop-labels.yml", "--out", dir.path])
        #expect(result.status == 0, "\(result.stderr)")
        let shops = try #require(jsonObject(dir.bytes("shop-labels/shops.json")) as? [[String: Any]])
        #expect(
            shops.map { $0["name"] as? String } == [
                "The Hive", "Golden Comb", "Nectar & Co", "Drone Honey", "Farmers’ Market Café",
            ])
        #expect(
            shops.map { $0["label"] as? String } == [
                "The Hive", "Comb", "Nectar & Co", "Drone", "Farmers’ Market Café",
            ])
        #expect(
            shops.map { $0["addressLine"] as? String } == [
                "1 Bee St, Turin (IT)", "12 Rue du Miel (FR)", "Ghent (BE)", nil, "2 Quay St, Brisbane (AU)",
            ])
        let manifest = try #require(jsonObject(dir.bytes("shop-labels/manifest.json")) as? [String: Any])
        let steps = try #require(manifest["steps"] as? [[String: Any]])
        #expect(steps.first { $0["step"] as? String == "normalize: replace" }?["changed"] as? Int == 2)
        #expect(steps.first { $0["step"] as? String == "normalize: coalesce" }?["changed"] == nil)
        #expect(steps.first { $0["step"] as? String == "normalize: repair-text" }?["changed"] as? Int == 1)
        #expect(shops.map { $0["isOpen"] as? Bool } == [false, true, true, nil, true])
        #expect(
            shops.map { $0["products"] as? [String] } == [
                ["honey", "candles"], ["honey"], nil, ["pollen", "propolis"], ["honey"],
            ])
        let rejects = try dir.read("shop-labels/rejects.ndjson")
        #expect(rejects.contains(#""rule":"boolean""#) && rejects.contains(#""id":"queen""#), "\(rejects)")
        let kinds = try CLI.run(["kinds"])
        for kind in ["template", "coalesce", "replace", "to-boolean", "split", "repair-text"] {
            #expect(kinds.stdout.contains(kind))
        }
    }
}

import Foundation
import Testing

/// Issue 18: means, sums and their rounding are exact for decimal inputs. The real binary
/// on `Fixtures/exact-numbers/`, checked against Python's `decimal` module reading the
/// same fixture (python3 is required by `make` and on CI).
@Suite("End to end: exact means and sums", .serialized)
struct ExactNumbersEndToEndTests {
    /// Per city: review count, vote sum, rating mean (2 decimals), spend sum and mean
    /// (2 decimals), each rounded ROUND_HALF_UP (half away from zero), as canonical text.
    static let python = #"""
        import json, sys
        from collections import Counter
        from decimal import Decimal, ROUND_HALF_UP
        q = Decimal("0.01")
        def text(d):
            d = d.quantize(q, rounding=ROUND_HALF_UP).normalize()
            return format(d, "f")
        groups = {}
        for line in open(sys.argv[1]):
            r = json.loads(line, parse_float=Decimal, parse_int=Decimal)
            groups.setdefault(r["cityID"], []).append(r)
        out = {}
        for city, rs in groups.items():
            ratings = [r["rating"] for r in rs]
            spends = [r["spend"] for r in rs]
            out[city] = {"reviews": len(rs), "votes": str(sum(r["helpfulVotes"] for r in rs)),
                         "meanRating": text(sum(ratings) / len(ratings)),
                         "spend": text(sum(spends)), "meanSpend": text(sum(spends) / len(spends)),
                         "topTitle": sorted(Counter(r["title"] for r in rs).items(), key=lambda kv: (-kv[1], kv[0]))[0][0]}
        print(json.dumps(out, sort_keys=True))
        """#

    static func pythonExpectations() throws -> [String: [String: Any]] {
        let result = try CLI.runProgram(
            "/usr/bin/env", ["python3", "-c", python, "Fixtures/exact-numbers/reviews.ndjson"])
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(jsonObject(Data(result.stdout.utf8)) as? [String: [String: Any]])
    }

    /// A number as written in the output file, as text: exact, without a binary detour.
    static func numberTexts(_ json: String, key: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: "\"\(key)\": (-?[0-9.eE+-]+)")
        return pattern.matches(in: json, range: NSRange(json.startIndex..., in: json)).map {
            String(json[Range($0.range(at: 1), in: json)!])
        }
    }

    @Test func meansSumsAndRoundingMatchPythonsDecimal() throws {
        let dir = try TempDir()
        let run = try CLI.run(["run", "Fixtures/exact-numbers/city-ratings.yml", "--out", dir.path])
        #expect(run.status == 0, "\(run.stderr)")
        let expected = try Self.pythonExpectations()
        #expect(expected.count == 3)

        let statsText = try dir.read("city-ratings/city-stats.json")
        let stats = try #require(jsonObject(Data(statsText.utf8)) as? [[String: Any]])
        let cities = stats.map { $0["cityID"] as! String }
        #expect(cities == ["faro", "lisbon", "porto"])
        // Compare the digits written, not doubles parsed from them.
        for (key, written) in ["votes", "meanRating", "spend", "meanSpend"].map({
            ($0, Self.numberTexts(statsText, key: $0))
        }) {
            #expect(written == cities.map { expected[$0]![key] as! String }, "\(key)")
        }
        // Lisbon: 20 ratings summing to 70.5, a mean of exactly 3.525: 3.53, not 3.52.
        #expect(Self.numberTexts(statsText, key: "meanRating")[1] == "3.53")
        // Faro: spends 1.005 + 1.67 + ... = 33.035 exactly: 33.04.
        #expect(Self.numberTexts(statsText, key: "spend")[0] == "33.04")
        // Sums of an integer field are integers, not `436.0`.
        #expect(Self.numberTexts(statsText, key: "votes").allSatisfy { !$0.contains(".") })

        // group-stats mode: the most frequent title, ties to the lowest, as Python counts it.
        #expect(stats.map { $0["topTitle"] as? String } == cities.map { expected[$0]!["topTitle"] as? String })

        // rating-summary writes the same exact mean onto the city.
        let citiesText = try dir.read("city-ratings/cities.json")
        let community = Self.numberTexts(citiesText, key: "communityRating")
        #expect(community == ["lisbon", "porto", "faro"].map { expected[$0]!["meanRating"] as! String })
        #expect(citiesText.contains("\"communityRating\": null"), "Évora has no reviews")
    }
}

import Testing

@testable import SeedForge

@Suite("Enrich: rating summary")
struct RatingSummaryTests {
    static let yaml = """
        name: ratings
        sources:
          shops:
            kind: json
            path: shops.json
            id: id
            fields: {id: string, rating: number}
          reviews:
            kind: json
            path: reviews.json
            id: id
            fields: {id: string, shopID: string, rating: number}
        steps:
          - validate: range
            collection: shops
            field: rating
            max: 5
          - enrich: rating-summary
            collection: shops
            key: id
            from: reviews
            foreign-key: shopID
            rating: rating
            seed-rating: rating
            decimals: 2
        outputs:
          - {file: shops.json, collection: shops}
          - {file: reviews.json, collection: reviews}
        thresholds:
          max-reject-fraction: 1
        """

    /// Issue 18: these 20 ratings sum to 70.5, a mean of exactly 3.525; rounded half away
    /// from zero that is 3.53 (python3: `(Decimal('70.5')/20).quantize(Decimal('0.01'),
    /// ROUND_HALF_UP)`), where the running binary mean (3.5249999999999995) gave 3.52.
    @Test func theMeanIsRoundedExactly() throws {
        let ratings = [3, 4.5, 2.5, 3.5, 2.5, 4, 4, 4, 4, 3, 2.5, 4, 2.5, 4, 4, 4.5, 2.5, 4, 3.5, 4]
        let reviews = ratings.enumerated().map { #"{"id":"\#($0)","shopID":"a","rating":\#($1)}"# }
        let result = try Harness.run(
            Self.yaml,
            files: [
                "shops.json": #"[{"id":"a","rating":4.8}]"#,
                "reviews.json": "[" + reviews.joined(separator: ",") + "]",
            ])
        #expect(result.records("shops")[0]["communityRating"] == .double(3.53))
        #expect(result.records("shops")[0]["reviewCount"] == .int(20))
    }

    @Test func displayedRatingIsTheReviewMeanElseTheSeed() throws {
        let result = try Harness.run(
            Self.yaml,
            files: [
                "shops.json": #"[{"id":"a","rating":4.8},{"id":"b","rating":4.6},{"id":"c","rating":9.6}]"#,
                "reviews.json": """
                [{"id":"1","shopID":"a","rating":4.5},{"id":"2","shopID":"a","rating":5},{"id":"3","shopID":"a","rating":3},
                 {"id":"4","shopID":"zzz","rating":4},{"id":"5","shopID":"c","rating":4}]
                """,
            ])
        let shops = result.records("shops")
        #expect(shops.map { $0["id"] } == [.string("a"), .string("b")])
        #expect(shops[0]["reviewCount"] == .int(3))
        #expect(shops[0]["communityRating"] == .double(4.17))
        #expect(shops[0]["seedRating"] == .double(4.8))
        #expect(shops[0]["displayedRating"] == .double(4.17))
        #expect(shops[1]["reviewCount"] == .int(0))
        #expect(shops[1]["communityRating"] == .null)
        #expect(shops[1]["displayedRating"] == .double(4.6))
        let orphans = result.rejects("reviews").map(\.findings[0])
        #expect(orphans.map(\.rule) == ["reference", "reference"])
        #expect(orphans[0].message == #"shopID "zzz" does not match the id of any shops record"#)
        #expect(orphans[1].message == #"shopID refers to shops id "c", which was rejected (see its entry in rejects)"#)
        #expect(result.records("reviews").count == 3)
    }

    @Test func hugeRatingsGiveAFiniteMeanInsteadOfACrash() throws {
        let yaml = LoaderTests.base.replacingOccurrences(
            of: "STEPS",
            with: """
                  - {enrich: rating-summary, collection: items, key: id, from: reviews, foreign-key: itemID, rating: rating, decimals: 2}
                """)
        let result = try Harness.run(
            yaml,
            files: [
                "data.json": #"[{"id": 1}]"#,
                "reviews.json": #"[{"id": 1, "itemID": 1, "rating": 1e308}, {"id": 2, "itemID": 1, "rating": 1e308}]"#,
            ])
        #expect(result.records("items")[0]["communityRating"] == .double(1e308))
    }
}

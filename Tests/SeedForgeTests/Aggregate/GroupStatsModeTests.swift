import Testing

@testable import SeedForge

/// Issue 18: group-stats `mode`, the most frequent value of a group.
@Suite("Aggregate: group-stats mode")
struct GroupStatsModeTests {
    @Test func theMostFrequentValueTiesToTheLowestAndSkipsNulls() throws {
        let result = try Harness.run(
            """
            name: t
            sources:
              places: {kind: json, path: places.json, fields: {trip: string, category: string, rating: number, visited: boolean}}
            steps:
              - aggregate: group-stats
                collection: places
                by: trip
                into: trips
                metrics:
                  topCategory: {mode: category}
                  usualRating: {mode: rating, where: visited}
            outputs:
              - {file: places.json, collection: places}
              - {file: trips.json, collection: trips}
            """,
            files: [
                "places.json": """
                [{"trip":"Paris","category":"Museum","rating":4,"visited":true},{"trip":"Paris","category":"Food","rating":4.0,"visited":true},
                 {"trip":"Paris","category":"Museum","rating":5,"visited":false},{"trip":"Paris","category":"Food","rating":5,"visited":true},
                 {"trip":"Paris","category":null,"rating":5,"visited":false},
                 {"trip":"Rome","category":null,"rating":null,"visited":false}]
                """
            ])
        let trips = result.records("trips")
        // Paris: Food 2, Museum 2 (a tie: Food is lower); 4 and 4.0 count as one rating.
        #expect(trips[0]["topCategory"] == .string("Food"))
        #expect(trips[0]["usualRating"]?.number == 4)
        #expect(trips[1]["topCategory"] == .null)
        #expect(trips[1]["usualRating"] == .null)
        #expect(result.state.schemas["trips"]!.fields.map(\.type) == [.string, .string, .number])
    }
}

import Foundation
import GRDB
import Testing

/// The adventure log's places pipeline through the real binary, on the fixture export,
/// the three saved API pages and the dirty cities dump. Every expected value below was
/// worked out by hand from `Fixtures/places/`.
@Suite("End to end: places")
struct PlacesEndToEndTests {
    static func dataset() throws -> TempDir {
        let dir = try TempDir()
        let run = try CLI.run(["run", "pipelines/places.yml", "--out", dir.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("places: wrote 22 places, 5 trips"), "\(run.stdout)")
        return dir
    }

    static func objects(_ dir: TempDir, _ file: String) throws -> [[String: Any]] {
        try #require(jsonObject(dir.bytes("places/\(file)")) as? [[String: Any]])
    }

    static func lines(_ dir: TempDir, _ file: String) throws -> [[String: Any]] {
        try dir.read("places/\(file)").split(separator: "\n").map { try #require(jsonObject(Data($0.utf8)) as? [String: Any]) }
    }

    @Test func everyDirtyRecordIsRejectedWithItsFileLineAndField() throws {
        let dir = try Self.dataset()
        let rejects = try Self.lines(dir, "rejects.ndjson").filter { $0["collection"] as? String != "cities" }
        let summary = rejects.map { "\($0["collection"]!) \($0["rule"]!) \(($0["file"] as! String).split(separator: "/").last!):\($0["line"]!) \($0["pointer"]!)" }
        #expect(summary == [
            "trips order places.json:378 /trips/4/endDate",
            "places range places.json:160 /places/9/rating",
            "places only-when places.json:176 /places/10/rating",
            "places required places.json:266 /places/16/latitude",
            "places only-when places.json:303 /places/18/visitedDate",
            "places unmapped places.json:281 /places/17/category",
            "nearby required Aap_uEBfKcU2qz7LmW.json:91 /results/3/geometry/location/lat",
            "places lookup places.json:323 /places/19/tripId",
        ])
        let messages = rejects.map { $0["message"] as! String }
        #expect(messages.contains(#"endDate "2026-05-03" is before startDate "2026-05-10""#))
        #expect(messages.contains("rating 6 is above the maximum 5 (the app rates visits with 1 to 5 stars)"))
        #expect(messages.contains("rating 4 is given, but isVisited is false: rating only applies when isVisited is true"))
        #expect(messages.contains(#"tripId "CD8EEEBC-E426-581F-A150-9B7AF5EE01E3" refers to a trips record that was rejected (see its entry in rejects)"#))
        // The dirty reference cities are reported too, never offered as a nearest city.
        #expect(try Self.lines(dir, "rejects.ndjson").filter { $0["collection"] as? String == "cities" }.count == 8)
        let warnings = try dir.read("places/warnings.ndjson")
        #expect(warnings.contains(#""pointer":"/places/20/favourite""#))

        let manifest = try #require(jsonObject(dir.bytes("places/manifest.json")) as? [String: Any])
        let accounting = try #require(manifest["accounting"] as? [String: [String: Any]])
        #expect(accounting["places"]?["read"] as? Int == 21 && accounting["places"]?["received"] as? Int == 12)
        #expect(accounting["places"]?["emitted"] as? Int == 22 && accounting["places"]?["rejected"] as? Int == 6 && accounting["places"]?["duplicates"] as? Int == 5)
        #expect(accounting["nearby"]?["read"] as? Int == 13 && accounting["nearby"]?["appended"] as? Int == 12 && accounting["nearby"]?["rejected"] as? Int == 1)
        #expect(accounting["cities"]?["reference"] as? Int == 26 && accounting["cities"]?["emitted"] as? Int == 0)
        let inputs = try #require(manifest["inputs"] as? [[String: Any]]).filter { $0["collection"] as? String == "nearby" }
        #expect(inputs.map { $0["file"] as! String } == [
            "../Fixtures/places/nearby/search.json", "../Fixtures/places/nearby/Aap_uEBfKcU2qz7LmW.json", "../Fixtures/places/nearby/Aap_uEC2tQm9x1rPv.json",
        ])
    }

    @Test func apiPlacesJoinTheAppsPlacesAndDuplicatesKeepTheAppsRecord() throws {
        let dir = try Self.dataset()
        let places = try Self.objects(dir, "places.json")
        func place(_ name: String, source: String? = nil) throws -> [String: Any] {
            try #require(places.first { $0["name"] as? String == name && (source == nil || $0["source"] as? String == source) }, "\(name)")
        }
        #expect(places.count == 22)
        #expect(places.filter { $0["source"] as? String == "places-api" }.count == 8)
        // Kept app records that took the API's public rating.
        let opera = try place("Sydney Opera House")
        #expect(opera["source"] as? String == "app" && opera["rating"] as? Int == 5)
        #expect(opera["publicRating"] as? Double == 4.7 && opera["ratingsCount"] as? Int == 91234)
        let bondi = try place("Bondi Beach")
        #expect(bondi["source"] as? String == "app" && bondi["publicRating"] as? Double == 4.6)
        #expect(try place("Icebergs Dining Room")["ratingsCount"] as? Int == 2987)
        #expect(!places.contains { $0["name"] as? String == "Icebergs Dining Room and Bar" })
        // API places: unvisited, categories from their types.
        let categories = Dictionary(uniqueKeysWithValues: places.filter { $0["source"] as? String == "places-api" }.map { ($0["name"] as! String, $0["category"] as! String) })
        #expect(categories == [
            "Bills Bondi": "Restaurant", "Bondi Farmers Market": "Other", "Bondi Icebergs Pool": "Activity", "Bronte Beach": "Beach",
            "Harry's Cafe de Wheels": "Restaurant", "St Mary's Cathedral": "Place of Worship", "Sydney Harbour National Park": "Hike",
            "Tamarama Beach": "Beach",
        ])
        #expect(places.filter { $0["source"] as? String == "places-api" }.allSatisfy { $0["isVisited"] as? Bool == false && $0["rating"] is NSNull })
        #expect(try place("Bills Bondi")["publicRating"] as? Double == 4)
        #expect(try place("Bronte Beach")["publicRating"] is NSNull)
        #expect(try place("Manly Beach")["category"] as? String == "Beach")          // "beach " in the export

        let duplicates = try Self.lines(dir, "duplicates.ndjson").filter { $0["collection"] as? String == "places" }
        #expect(duplicates.map { "\($0["id"]!) -> \($0["winner"]!) \(($0["filled"] as? [String]) ?? [])" } == [
            "51070043-0F10-5D82-90CE-DC90AC3B0EE1 -> 51070043-0F10-5D82-90CE-DC90AC3B0EE1 []",
            "ChIJ3S-JXmauEmsRUcIaWtf4MzE -> ChIJ3S-JXmauEmsRUcIaWtf4MzE []",
            "ChIJ3S-JXmauEmsRUcIaWtf4MzE -> 51070043-0F10-5D82-90CE-DC90AC3B0EE1 [\"publicRating\", \"ratingsCount\"]",
            "ChIJ5Y1pZheuEmsRJ7LdQ8lw0tA -> 3155457F-8E2F-59FC-BFBC-C9CEC0613311 [\"publicRating\", \"ratingsCount\"]",
            "ChIJ0XCaYhKyEmsR_3P9bSNtmxw -> 48A2031B-70FB-5BC6-A75A-BA1429A68C8E [\"publicRating\", \"ratingsCount\"]",
        ])
        #expect(duplicates[4]["key"] as? String == "bondi beach")
    }

    /// Every place's city against a brute-force scan of the cleaned cities dataset.
    @Test func nearestCitiesMatchABruteForceScanAndTheCutOff() throws {
        let dir = try Self.dataset()
        let cityRun = try CLI.run(["run", "pipelines/cities.yml", "--out", dir.path])
        #expect(cityRun.status == 0, "\(cityRun.stderr)")
        let cities = try #require(jsonObject(dir.bytes("cities/cities.json")) as? [[String: Any]])
        func haversineKm(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
            let rad = Double.pi / 180
            let dLat = (b.0 - a.0) * rad, dLon = (b.1 - a.1) * rad
            let h = sin(dLat / 2) * sin(dLat / 2) + cos(a.0 * rad) * cos(b.0 * rad) * sin(dLon / 2) * sin(dLon / 2)
            return 2 * 6371.0088 * asin(min(1, h.squareRoot()))
        }
        for place in try Self.objects(dir, "places.json") {
            let position = (place["latitude"] as! Double, place["longitude"] as! Double)
            let best = cities.map { city in (city, haversineKm(position, (city["latitude"] as! Double, city["longitude"] as! Double))) }
                .min { $0.1 < $1.1 }!
            if best.1 > 50 {
                #expect(place["city"] is NSNull && place["country"] is NSNull && place["cityKm"] is NSNull, "\(place["name"]!)")
            } else {
                #expect(place["city"] as? String == best.0["name"] as? String, "\(place["name"]!)")
                #expect(place["country"] as? String == best.0["country"] as? String)
                #expect(abs((place["cityKm"] as! Double) - best.1) < 0.0006, "\(place["name"]!): \(place["cityKm"]!) vs \(best.1)")
            }
        }
        let places = try Self.objects(dir, "places.json")
        let noCity = places.filter { $0["city"] is NSNull }.map { $0["name"] as! String }
        #expect(noCity == ["Annapurna Base Camp", "Jabal al-Rahmah", "Masjid al-Haram", "Mina"])
        #expect(places.first { $0["name"] as? String == "Sacré-Cœur" }?["city"] as? String == "Paris")
    }

    @Test func statisticsMatchHandComputedValues() throws {
        let dir = try Self.dataset()
        let trips = try Self.objects(dir, "trips.json")
        func trip(_ name: String) throws -> [String: Any] { try #require(trips.first { $0["name"] as? String == name }) }
        #expect(trips.map { $0["name"] as! String } == ["Paris weekend", "Hajj 2024", "Summer in Sydney", "Alps 2025", "Iceland ring road"])
        let sydney = try trip("Summer in Sydney")
        #expect(sydney["places"] as? Int == 5 && sydney["visited"] as? Int == 4)       // Bondi, coastal walk, Opera House, Icebergs visited; Manly not
        #expect(sydney["meanRating"] as? Double == 4.5)                                // (5 + 4 + 5 + 4) / 4
        #expect(sydney["firstVisit"] as? String == "2024-12-28" && sydney["lastVisit"] as? String == "2024-12-31")
        #expect(try trip("Hajj 2024")["meanRating"] as? Double == 4.67)                // (5 + 4 + 5) / 3
        #expect(try trip("Alps 2025")["places"] as? Int == 1)                          // Uetliberg (rating 6) and Utoquai (rated, unvisited) rejected
        let iceland = try trip("Iceland ring road")
        #expect(iceland["places"] as? Int == 0 && iceland["visited"] as? Int == 0 && iceland["meanRating"] is NSNull)

        let byTrip = try Self.objects(dir, "stats/trips.json")
        let noTrip = try #require(byTrip.last)
        #expect(noTrip["tripId"] is NSNull && noTrip["places"] as? Int == 11 && noTrip["visited"] as? Int == 2)   // Gorkha Durbar, Tsukiji
        #expect(noTrip["meanRating"] as? Double == 4.5 && noTrip["firstVisit"] as? String == "2023-11-03" && noTrip["lastVisit"] as? String == "2025-10-08")

        let categories = try Self.objects(dir, "stats/categories.json")
        let byCategory = Dictionary(uniqueKeysWithValues: categories.map { ($0["category"] as! String, "\($0["places"]!) \($0["visited"]!) \($0["meanRating"]!)") })
        #expect(byCategory == [
            "Activity": "3 2 4.5",              // Opera House 5, Lindt 4; Icebergs Pool unvisited
            "Beach": "4 1 5.0",                   // Bondi 5; Manly, Bronte, Tamarama unvisited
            "Hike": "3 1 4.0",                    // coastal walk 4; Annapurna, the national park unvisited
            "Other": "2 1 4.0",                   // Mina 4; the farmers market unvisited
            "Place of Worship": "5 4 5.0",        // Haram, Arafat, Sacré-Cœur, Gorkha Durbar all 5
            "Restaurant": "5 3 3.67",           // Icebergs 4, Comptoir 3, Tsukiji 4 = 11 / 3
        ])
        let countries = try Self.objects(dir, "stats/countries.json")
        #expect(countries.map { "\($0["country"]!) \($0["places"]!) \($0["visited"]!) \($0["meanRating"]!)" } == [
            "AU 13 4 4.5", "CH 1 1 4.0", "FR 2 2 4.0", "JP 1 1 4.0", "NP 1 1 5.0", "<null> 4 3 4.67",
        ])
    }

    @Test func theAppsExportFormatsAndFullTextSearch() throws {
        let dir = try Self.dataset()
        let text = try dir.read("places/places.txt")
        #expect(text.hasPrefix("Adventure Logger places (22 records)\n\nAnnapurna Base Camp\n  category: Hike\n"))
        #expect(text.contains("Bondi Beach\n  category: Beach\n  address: Queen Elizabeth Dr, Bondi Beach NSW 2026\n  city: Sydney\n  country: AU\n  isVisited: true\n  visitedDate: 2024-12-28\n  rating: 5\n"))
        let csv = try dir.read("places/places.csv")
        #expect(csv.hasPrefix("name,category,isVisited,visitedDate,rating,tripName,address,city,country,latitude,longitude,source\r\n"))
        #expect(csv.split(separator: "\r\n").count == 23)
        let queue = try DatabaseQueue(path: dir.path + "/places/places.sqlite")
        func search(_ query: String) throws -> [String] {
            try queue.read { db in
                try String.fetchAll(db, sql: "SELECT p.name FROM places_fts f JOIN places p ON p.rowid = f.rowid WHERE places_fts MATCH ? ORDER BY p.rowid", arguments: [query])
            }
        }
        #expect(try search("cathedral") == ["St Mary's Cathedral"])                     // name
        #expect(try search("fireworks").isEmpty)                                           // reflections are not indexed
        #expect(try search("harbour") == ["Sydney Harbour National Park", "Sydney Opera House"])   // name, description
        #expect(try search("zürich") == ["Lindt Home of Chocolate"])                        // city
        #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM places WHERE country = 'AU'") } == 13)
        // Deterministic: a second run writes the same bytes.
        let again = try TempDir()
        #expect(try CLI.run(["run", "pipelines/places.yml", "--out", again.path]).status == 0)
        for file in ["places.json", "places.csv", "places.txt", "places.sqlite", "trips.json", "stats/trips.json", "rejects.ndjson", "duplicates.ndjson", "warnings.ndjson"] {
            #expect(try dir.bytes("places/\(file)") == again.bytes("places/\(file)"), "\(file)")
        }
    }
}

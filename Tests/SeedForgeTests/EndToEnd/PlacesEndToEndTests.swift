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
        #expect(run.stdout.contains("places: wrote 28 places, 7 trips"), "\(run.stdout)")
        return dir
    }

    static func objects(_ dir: TempDir, _ file: String) throws -> [[String: Any]] {
        try #require(jsonObject(dir.bytes("places/\(file)")) as? [[String: Any]])
    }

    static func lines(_ dir: TempDir, _ file: String) throws -> [[String: Any]] {
        try dir.read("places/\(file)").split(separator: "\n").map {
            try #require(jsonObject(Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func everyDirtyRecordIsRejectedWithItsFileLineAndField() throws {
        let dir = try Self.dataset()
        let rejects = try Self.lines(dir, "rejects.ndjson").filter { $0["collection"] as? String != "cities" }
        let summary = rejects.map {
            "\($0["collection"]!) \($0["rule"]!) \(($0["file"] as! String).split(separator: "/").last!):\($0["line"]!) \($0["pointer"]!)"
        }
        #expect(
            summary == [
                "places range places.json:160 /places/9/rating",
                "places only-when places.json:176 /places/10/rating",
                "places required places.json:266 /places/16/latitude",
                "places only-when places.json:303 /places/18/visitedDate",
                "places date places.json:448 /places/27/visitedDate",
                "places unmapped places.json:281 /places/17/category",
                "nearby required ff970d4665ac5bf5813ff2893d56f4d611b32f11257266fd48a83cca534d8fd7.json:148 /results/3/geometry/location/lat",
            ])
        let messages = rejects.map { $0["message"] as! String }
        #expect(messages.contains("rating 6 is above the maximum 5 (the app rates visits with 1 to 5 stars)"))
        #expect(
            messages.contains("rating 4 is given, but isVisited is false: rating only applies when isVisited is true"))
        #expect(
            messages.contains(#"visitedDate "15/06/2024" is not a calendar date written YYYY-MM-DD (e.g. 2024-06-14)"#))
        // The dirty reference cities are reported too, never offered as a nearest city.
        #expect(try Self.lines(dir, "rejects.ndjson").filter { $0["collection"] as? String == "cities" }.count == 8)
        // A trip that ends before it starts is reported and kept, with its place.
        let warnings = try Self.lines(dir, "warnings.ndjson").map {
            "\($0["collection"]!) \($0["rule"]!) \($0["pointer"]!) \($0["message"]!)"
        }
        #expect(
            warnings == [
                #"places unknown-field /places/20/favourite field 'favourite' is not declared in the source's 'fields'"#,
                #"trips order /trips/4/endDate endDate "2026-05-03" is before startDate "2026-05-10""#,
            ])

        let manifest = try #require(jsonObject(dir.bytes("places/manifest.json")) as? [String: Any])
        let accounting = try #require(manifest["accounting"] as? [String: [String: Any]])
        #expect(accounting["places"]?["read"] as? Int == 28 && accounting["places"]?["received"] as? Int == 12)
        #expect(
            accounting["places"]?["emitted"] as? Int == 28 && accounting["places"]?["rejected"] as? Int == 6
                && accounting["places"]?["duplicates"] as? Int == 6)
        #expect(
            accounting["nearby"]?["read"] as? Int == 13 && accounting["nearby"]?["appended"] as? Int == 12
                && accounting["nearby"]?["rejected"] as? Int == 1)
        #expect(
            accounting["cities"]?["reference"] as? Int == 24 && accounting["cities"]?["emitted"] as? Int == 0
                && accounting["cities"]?["duplicates"] as? Int == 3)
        let inputs = try #require(manifest["inputs"] as? [[String: Any]]).filter {
            $0["collection"] as? String == "nearby"
        }
        #expect(
            inputs.map { $0["file"] as! String } == [
                "../Fixtures/places/nearby/search.json",
                "../Fixtures/places/nearby/ff970d4665ac5bf5813ff2893d56f4d611b32f11257266fd48a83cca534d8fd7.json",
                "../Fixtures/places/nearby/3ed3f7cf281887a0c863118e4d37e7b3656327523915ee6cacc935da51d45675.json",
            ])
    }

    @Test func apiPlacesJoinTheAppsPlacesAndDuplicatesKeepTheAppsRecord() throws {
        let dir = try Self.dataset()
        let places = try Self.objects(dir, "places.json")
        func place(_ name: String, source: String? = nil) throws -> [String: Any] {
            try #require(
                places.first { $0["name"] as? String == name && (source == nil || $0["source"] as? String == source) },
                "\(name)")
        }
        #expect(places.count == 28)
        #expect(places.filter { $0["source"] as? String == "places-api" }.count == 7)
        // Two of the app's own places are never merged: Bondi Beach on two trips, and the
        // app's Tamarama Beach and the API's, 155 m apart.
        #expect(
            places.filter { $0["name"] as? String == "Bondi Beach" }.map { $0["tripName"] as? String } == [
                "Summer in Sydney", "Bondi reunion",
            ])
        #expect(
            places.filter { $0["name"] as? String == "Tamarama Beach" }.map { $0["source"] as! String } == [
                "places-api", "app",
            ])
        #expect(
            try place("Bronte Beach")["source"] as? String == "app"
                && place("Bronte Beach")["category"] as? String == "Beach")  // "🏖️", 93 m from the API's
        // Kept app records that took the API's public rating.
        let opera = try place("Sydney Opera House")
        #expect(opera["source"] as? String == "app" && opera["rating"] as? Int == 5)
        #expect(opera["publicRating"] as? Double == 4.7 && opera["ratingsCount"] as? Int == 91234)
        let bondi = try place("Bondi Beach")
        #expect(bondi["source"] as? String == "app" && bondi["publicRating"] as? Double == 4.6)
        #expect(try place("Icebergs Dining Room")["ratingsCount"] as? Int == 2987)
        #expect(!places.contains { $0["name"] as? String == "Icebergs Dining Room and Bar" })
        // API places: unvisited, categories from their types.
        let categories = Dictionary(
            uniqueKeysWithValues: places.filter { $0["source"] as? String == "places-api" }.map {
                ($0["name"] as! String, $0["category"] as! String)
            })
        #expect(
            categories == [
                "Bills Bondi": "Restaurant", "Bondi Farmers Market": "Other", "Bondi Icebergs Pool": "Activity",
                "Harry's Cafe de Wheels": "Restaurant", "St Mary's Cathedral": "Place of Worship",
                "Sydney Harbour National Park": "Hike",
                "Tamarama Beach": "Beach",
            ])
        #expect(
            places.filter { $0["source"] as? String == "places-api" }.allSatisfy {
                $0["isVisited"] as? Bool == false && $0["rating"] is NSNull
            })
        #expect(try place("Bills Bondi")["publicRating"] as? Double == 4)
        #expect(try place("Bronte Beach")["publicRating"] is NSNull)  // the API listing had no rating
        #expect(try place("Manly Beach")["category"] as? String == "Beach")  // "beach " in the export

        let duplicates = try Self.lines(dir, "duplicates.ndjson").filter { $0["collection"] as? String == "places" }
        #expect(
            duplicates.map {
                "\($0["id"]!) -> \($0["winner"]!) \(($0["filled"] as? [String]) ?? []) \($0["distanceKm"] ?? "-")"
            } == [
                "51070043-0F10-5D82-90CE-DC90AC3B0EE1 -> 51070043-0F10-5D82-90CE-DC90AC3B0EE1 [] -",
                "ChIJ3S-JXmauEmsRUcIaWtf4MzE -> ChIJ3S-JXmauEmsRUcIaWtf4MzE [] -",
                "ChIJ3S-JXmauEmsRUcIaWtf4MzE -> 51070043-0F10-5D82-90CE-DC90AC3B0EE1 [\"publicRating\", \"ratingsCount\"] -",
                "ChIJ5Y1pZheuEmsRJ7LdQ8lw0tA -> 3155457F-8E2F-59FC-BFBC-C9CEC0613311 [\"publicRating\", \"ratingsCount\"] -",
                "ChIJ0XCaYhKyEmsR_3P9bSNtmxw -> 48A2031B-70FB-5BC6-A75A-BA1429A68C8E [\"publicRating\", \"ratingsCount\"] 0.002",
                "ChIJr8q6XE2tEmsRQb0QnhSjv3c -> 353E1408-2870-5B50-95F8-F211EA46ECB6 [] 0.093",
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
            let dLat = (b.0 - a.0) * rad
            let dLon = (b.1 - a.1) * rad
            let h = sin(dLat / 2) * sin(dLat / 2) + cos(a.0 * rad) * cos(b.0 * rad) * sin(dLon / 2) * sin(dLon / 2)
            return 2 * 6371.0088 * asin(min(1, h.squareRoot()))
        }
        for place in try Self.objects(dir, "places.json") {
            let position = (place["latitude"] as! Double, place["longitude"] as! Double)
            let best = cities.map { city in
                let coord = city["coord"] as! [String: Double]
                return (city, haversineKm(position, (coord["lat"]!, coord["lon"]!)))
            }
            .min { $0.1 < $1.1 }!
            if best.1 > 50 {
                #expect(
                    place["city"] is NSNull && place["country"] is NSNull && place["cityKm"] is NSNull,
                    "\(place["name"]!)")
            } else {
                #expect(place["city"] as? String == best.0["name"] as? String, "\(place["name"]!)")
                #expect(place["country"] as? String == best.0["country"] as? String)
                #expect(
                    abs((place["cityKm"] as! Double) - best.1) < 0.0006,
                    "\(place["name"]!): \(place["cityKm"]!) vs \(best.1)")
            }
        }
        let places = try Self.objects(dir, "places.json")
        let noCity = places.filter { $0["city"] is NSNull }.map { $0["name"] as! String }
        #expect(
            noCity == [
                "Annapurna Base Camp", "Chapelle Saint-Blaise-des-Simples", "Jabal al-Rahmah", "Masjid al-Haram",
                "Mina", "Torre de Belém",
            ])
        // Either side of the 50 km cut-off, and north of Zurich, which the dump lists twice.
        #expect(places.first { $0["name"] as? String == "Scarborough Pool" }?["cityKm"] as? Double == 49.837)  // Sydney
        #expect(places.first { $0["name"] as? String == "Zürichberg" }?["city"] as? String == "Zürich")
        #expect(places.first { $0["name"] as? String == "Sacré-Cœur" }?["city"] as? String == "Paris")
    }

    @Test func statisticsMatchHandComputedValues() throws {
        let dir = try Self.dataset()
        let trips = try Self.objects(dir, "trips.json")
        func trip(_ name: String) throws -> [String: Any] {
            try #require(trips.first { $0["name"] as? String == name })
        }
        #expect(
            trips.map { $0["name"] as! String } == [
                "Paris weekend", "Hajj 2024", "Summer in Sydney", "Alps 2025", "Bondi reunion", "Lisbon someday",
                "Iceland ring road",
            ])
        let sydney = try trip("Summer in Sydney")
        #expect(sydney["places"] as? Int == 5 && sydney["visited"] as? Int == 4)  // Bondi, coastal walk, Opera House, Icebergs visited; Manly not
        #expect(sydney["meanRating"] as? Double == 4.5)  // (5 + 4 + 5 + 4) / 4
        #expect(sydney["firstVisit"] as? String == "2024-12-28" && sydney["lastVisit"] as? String == "2024-12-31")
        #expect(try trip("Hajj 2024")["meanRating"] as? Double == 4.67)  // (5 + 4 + 5) / 3
        #expect(try trip("Alps 2025")["places"] as? Int == 2)  // Lindt, Zürichberg; Uetliberg (rating 6) and Utoquai (rated, unvisited) rejected
        let reunion = try trip("Bondi reunion")  // Bondi again 3, Tamarama 4; Bronte unvisited
        #expect(
            reunion["places"] as? Int == 3 && reunion["visited"] as? Int == 2 && reunion["meanRating"] as? Double == 3.5
        )
        #expect(reunion["firstVisit"] as? String == "2026-01-11" && reunion["lastVisit"] as? String == "2026-01-12")
        #expect(try trip("Lisbon someday")["places"] as? Int == 1)  // its dates are backwards: reported, kept
        let iceland = try trip("Iceland ring road")
        #expect(iceland["places"] as? Int == 0 && iceland["visited"] as? Int == 0 && iceland["meanRating"] is NSNull)

        let byTrip = try Self.objects(dir, "stats/trips.json")
        let noTrip = try #require(byTrip.last)
        #expect(noTrip["tripId"] is NSNull && noTrip["places"] as? Int == 12 && noTrip["visited"] as? Int == 2)  // Gorkha Durbar, Tsukiji
        #expect(
            noTrip["meanRating"] as? Double == 4.5 && noTrip["firstVisit"] as? String == "2023-11-03"
                && noTrip["lastVisit"] as? String == "2025-10-08")

        let categories = try Self.objects(dir, "stats/categories.json")
        let byCategory = Dictionary(
            uniqueKeysWithValues: categories.map {
                ($0["category"] as! String, "\($0["places"]!) \($0["visited"]!) \($0["meanRating"]!)")
            })
        #expect(
            byCategory == [
                "Activity": "3 2 4.5",  // Opera House 5, Lindt 4; Icebergs Pool unvisited
                "Beach": "7 3 4.0",  // Bondi 5, Bondi again 3, Tamarama (app) 4; Manly, Bronte, Scarborough, Tamarama (API) unvisited
                "Hike": "4 1 4.0",  // coastal walk 4; Annapurna, the national park, Zürichberg unvisited
                "Other": "3 1 4.0",  // Mina 4; the farmers market, Torre de Belém unvisited
                "Place of Worship": "6 4 5.0",  // Haram, Arafat, Sacré-Cœur, Gorkha Durbar all 5; St Mary's, the chapel unvisited
                "Restaurant": "5 3 3.67",  // Icebergs 4, Comptoir 3, Tsukiji 4 = 11 / 3
            ])
        let countries = try Self.objects(dir, "stats/countries.json")
        #expect(
            countries.map { "\($0["country"]!) \($0["places"]!) \($0["visited"]!) \($0["meanRating"]!)" } == [
                "AU 16 6 4.17",  // (5 + 3 + 4 + 4 + 5 + 4) / 6: Bondi, Bondi again, coastal walk, Icebergs, Opera House, Tamarama
                "CH 2 1 4.0", "FR 2 2 4.0", "JP 1 1 4.0", "NP 1 1 5.0",
                "<null> 6 3 4.67",  // Haram 5, Mina 4, Arafat 5; Annapurna, the chapel, Torre de Belém unvisited
            ])
    }

    @Test func theAppsExportFormatsAndFullTextSearch() throws {
        let dir = try Self.dataset()
        let text = try dir.read("places/places.txt")
        #expect(text.hasPrefix("Adventure Logger places (28 records)\n\nAnnapurna Base Camp\n  category: Hike\n"))
        #expect(
            text.contains(
                "Bondi Beach\n  category: Beach\n  address: Queen Elizabeth Dr, Bondi Beach NSW 2026\n  city: Sydney\n  country: AU\n  isVisited: true\n  visitedDate: 2024-12-28\n  rating: 5\n"
            ))
        let csv = try dir.read("places/places.csv")
        #expect(
            csv.hasPrefix(
                "name,category,isVisited,visitedDate,rating,tripName,address,city,country,latitude,longitude,source\r\n"
            ))
        #expect(csv.split(separator: "\r\n").count == 29)
        let queue = try DatabaseQueue(path: dir.path + "/places/places.sqlite")
        func search(_ query: String) throws -> [String] {
            try queue.read { db in
                try String.fetchAll(
                    db,
                    sql:
                        "SELECT p.name FROM places_fts f JOIN places p ON p.rowid = f.rowid WHERE places_fts MATCH ? ORDER BY p.rowid",
                    arguments: [query])
            }
        }
        #expect(try search("cathedral") == ["St Mary's Cathedral"])  // name
        #expect(try search("fireworks").isEmpty)  // reflections are not indexed
        #expect(try search("harbour") == ["Sydney Harbour National Park", "Sydney Opera House"])  // name, description
        #expect(try search("zürich") == ["Lindt Home of Chocolate", "Zürichberg"])  // city
        #expect(try queue.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM places WHERE country = 'AU'") } == 16)
        // Deterministic: a second run writes the same bytes.
        let again = try TempDir()
        #expect(try CLI.run(["run", "pipelines/places.yml", "--out", again.path]).status == 0)
        for file in [
            "places.json", "places.csv", "places.txt", "places.sqlite", "trips.json", "stats/trips.json",
            "rejects.ndjson", "duplicates.ndjson", "warnings.ndjson",
        ] {
            #expect(try dir.bytes("places/\(file)") == again.bytes("places/\(file)"), "\(file)")
        }
    }
}

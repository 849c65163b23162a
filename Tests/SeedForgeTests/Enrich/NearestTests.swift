import Foundation
import Testing

@testable import SeedForge

@Suite("Enrich: nearest (k-d tree on the sphere)")
struct NearestTests {
    /// Haversine in its textbook form, written independently of SphereIndex.
    static func haversineKm(_ a: (Double, Double), _ b: (Double, Double)) -> Double {
        let r = Double.pi / 180
        let dLat = (b.0 - a.0) * r
        let dLon = (b.1 - a.1) * r
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(a.0 * r) * cos(b.0 * r) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * SphereIndex.earthRadiusKm * atan2(h.squareRoot(), (1 - h).squareRoot())
    }

    /// Points shaped like a city dataset: dense clusters, exact duplicates, the poles and
    /// both sides of the antimeridian.
    static func cities(_ count: Int, _ rng: inout SplitMix64) -> [(latitude: Double, longitude: Double)] {
        var points: [(latitude: Double, longitude: Double)] = [
            (90, 0), (-90, 0), (0, 180), (0, -180), (10, 179.99), (10, -179.99),
        ]
        let centres = (0..<20).map { _ in
            (Double.random(in: -60...70, using: &rng), Double.random(in: -180...180, using: &rng))
        }
        while points.count < count {
            if points.count % 5 == 0 {
                points.append((Double.random(in: -90...90, using: &rng), Double.random(in: -180...180, using: &rng)))
            } else if points.count % 7 == 0 {
                points.append(points[Int.random(in: 0..<points.count, using: &rng)])  // a duplicate position
            } else {
                let c = centres[Int.random(in: 0..<centres.count, using: &rng)]
                points.append(
                    (
                        max(-90, min(90, c.0 + Double.random(in: -0.5...0.5, using: &rng))),
                        max(-180, min(180, c.1 + Double.random(in: -0.5...0.5, using: &rng)))
                    ))
            }
        }
        return points
    }

    @Test func theTreeAgreesWithABruteForceScan() {
        var rng = SplitMix64(state: 42)
        let points = Self.cities(5_000, &rng)
        let index = SphereIndex(points)
        var queries = (0..<3_000).map { _ in
            (Double.random(in: -90...90, using: &rng), Double.random(in: -180...180, using: &rng))
        }
        queries += points.prefix(200).map { ($0.latitude, $0.longitude) }  // exactly on a point
        queries += [(89.999, 45), (-89.999, -45), (0, 179.999), (0, -179.999)]
        for query in queries {
            var best = (km: Double.infinity, index: -1)
            for (i, p) in points.enumerated() {
                let km = Self.haversineKm(query, (p.latitude, p.longitude))
                if km < best.km - 1e-9 { best = (km, i) }
            }
            let found = index.nearest(latitude: query.0, longitude: query.1)!
            // The same point, or one at the same distance (duplicates, ties within 1 mm).
            #expect(abs(found.km - best.km) < 1e-6, "\(query): tree \(found) vs scan \(best)")
            #expect(
                abs(Self.haversineKm(query, (points[found.index].latitude, points[found.index].longitude)) - found.km)
                    < 1e-6)
        }
    }

    @Test func ofEquallyNearPointsTheFirstWins() {
        let index = SphereIndex([(1, 1), (5, 5), (1, 1), (5, 5)])
        #expect(index.nearest(latitude: 1, longitude: 1)?.index == 0)
        #expect(index.nearest(latitude: 5.1, longitude: 5.1)?.index == 1)
        #expect(SphereIndex([]).nearest(latitude: 0, longitude: 0) == nil)
    }

    @Test func ofPointsAtOnePositionTheFirstWinsAcrossTheTree() {
        // 200 points, each position listed twice far apart in the input, so the tree puts
        // the copies in different leaves; the lower index must win every time.
        var rng = SplitMix64(state: 7)
        let positions = (0..<100).map { _ in
            (latitude: Double.random(in: -80...80, using: &rng), longitude: Double.random(in: -180...180, using: &rng))
        }
        let index = SphereIndex(positions + positions)
        for (i, p) in positions.enumerated() {
            #expect(index.nearest(latitude: p.latitude, longitude: p.longitude)?.index == i)
        }
        // One place written two ways is one position: a pole at any longitude, ±180.
        let written = SphereIndex([(90, 10), (90, 0), (0, 180), (0, -180)] + positions)
        #expect(written.nearest(latitude: 89, longitude: 0)?.index == 0)
        #expect(written.nearest(latitude: 0, longitude: -179)?.index == 2)
        #expect(written.nearest(latitude: .nan, longitude: 0) == nil)
    }

    @Test func distancesAreAccurateUpToTheAntipodes() {
        // Half the circumference, to the millimetre, though the chord is at its longest.
        #expect(abs(SphereIndex.distanceKm((10, 20), (-10, -160)) - .pi * SphereIndex.earthRadiusKm) < 1e-6)
        #expect(abs(SphereIndex.distanceKm((0, 0), (0, 0.00001)) - 0.00111195) < 1e-7)
    }

    @Test func knownDistances() {
        let paris = (48.8566, 2.3522)
        let london = (51.5074, -0.1278)
        #expect(abs(SphereIndex.distanceKm(paris, london) - 343.9) < 1)  // about 344 km
        // Across the antimeridian: 0.02° of longitude at the equator, about 2.2 km.
        #expect(abs(SphereIndex.distanceKm((0, 179.99), (0, -179.99)) - 2.224) < 0.01)
    }

    static let pipeline = """
        name: n
        sources:
          places: {kind: json, path: places.json, id: id, fields: {id: string, latitude: any, longitude: any}}
          cities: {kind: json, path: cities.json, id: name, fields: {name: string, country: string, lat: number, lng: number}}
        steps:
          - enrich: nearest
            collection: places
            latitude: latitude
            longitude: longitude
            from: cities
            from-latitude: lat
            from-longitude: lng
            take: {city: name, country: country}
            distance-field: cityKm
            max-km: 50
        outputs:
          - {file: places.json, collection: places}
          - {file: cities.json, collection: cities}
        """

    @Test func placesTakeTheirNearestCityWithinTheCutOff() throws {
        let result = try Harness.run(
            Self.pipeline,
            files: [
                "cities.json": """
                [{"name":"Paris","country":"FR","lat":48.8566,"lng":2.3522},{"name":"Versailles","country":"FR","lat":48.8049,"lng":2.1204},
                 {"name":"Suva","country":"FJ","lat":-18.1248,"lng":178.4501},{"name":"Taveuni","country":"FJ","lat":-16.85,"lng":-179.95},
                 {"name":"Nowhere","country":"XX","lat":null,"lng":12}]
                """,
                "places.json": """
                [{"id":"louvre","latitude":48.8606,"longitude":2.3376},{"id":"chateau","latitude":48.8049,"longitude":2.1204},
                 {"id":"dateline","latitude":-16.9,"longitude":179.98},{"id":"mid-atlantic","latitude":30,"longitude":-40},
                 {"id":"bad","latitude":"48.8","longitude":2.3},{"id":"pole","latitude":91,"longitude":0}]
                """,
            ])
        let places = result.records("places")
        #expect(
            places.map { $0["city"] } == [
                .string("Paris"), .string("Versailles"), .string("Taveuni"), .null, .null, .null,
            ])
        #expect(places.map { $0["country"] } == [.string("FR"), .string("FR"), .string("FJ"), .null, .null, .null])
        #expect(places[1]["cityKm"] == .double(0))
        let louvre = try #require(places[0]["cityKm"]?.number)
        #expect(abs(louvre - Self.haversineKm((48.8606, 2.3376), (48.8566, 2.3522))) < 0.001)  // rounded to metres
        #expect(places[2]["cityKm"]?.number.map { $0 < 10 } == true)  // across the antimeridian, not Suva
        #expect(places[3]["cityKm"] == .null)  // nearest city is too far
        let warnings = result.state.warnings.filter { $0.collection == "places" }
        #expect(warnings.map(\.finding.rule) == ["coordinates", "coordinates"])
        #expect(
            warnings.first?.finding.message.contains(
                #"latitude, longitude = "48.8", 2.3 is not a position on the globe"#) == true, "\(warnings)")
        #expect(result.rejects("places").isEmpty)  // nothing lost
        let left = result.state.warnings.filter { $0.collection == "cities" }.map(\.finding.message)
        #expect(
            left == [
                "1 of 5 cities records have no position on the globe (missing or out-of-range coordinates) and are never a nearest cities record"
            ])
    }

    @Test func noUsableCandidateIsSaidOnce() throws {
        let result = try Harness.run(
            Self.pipeline,
            files: [
                "cities.json": #"[{"name":"Nowhere","country":"XX","lat":null,"lng":12}]"#,
                "places.json":
                    #"[{"id":"a","latitude":1,"longitude":2},{"id":"b","latitude":91,"longitude":2},{"id":"c","latitude":1,"longitude":200}]"#,
            ])
        #expect(result.records("places").map { $0["city"] } == [.null, .null, .null])
        let messages = result.state.warnings.map(\.finding.message)
        #expect(
            messages.first
                == "none of the 1 cities records has a position on the globe, so no places record gets a nearest cities record"
        )
        #expect(
            result.state.warnings.filter { $0.collection == "places" }.map(\.finding.field) == [
                "latitude", "longitude",
            ])
    }

    @Test func theCutOffComparesTheDistanceAsWritten() throws {
        // Paris to Versailles is 17.6 km: written as 18 with decimals 0, so max-km 18 keeps it.
        let yaml = Self.pipeline.replacingOccurrences(of: "max-km: 50", with: "max-km: 18\n    decimals: 0")
        let result = try Harness.run(
            yaml,
            files: [
                "cities.json": #"[{"name":"Versailles","country":"FR","lat":48.8049,"lng":2.1204}]"#,
                "places.json": #"[{"id":"notre-dame","latitude":48.853,"longitude":2.3499}]"#,
            ])
        #expect(result.records("places").map { $0["cityKm"] } == [.double(18)])
        #expect(Self.haversineKm((48.853, 2.3499), (48.8049, 2.1204)) > 17.5)
    }

    @Test func mistakesInTheStepAreDefinitionErrors() {
        func messages(_ replace: String, with: String) -> [String] {
            Harness.definitionErrors(
                Self.pipeline.replacingOccurrences(of: replace, with: with),
                files: ["places.json": "[]", "cities.json": "[]"]
            ).map(\.message)
        }
        #expect(
            messages("take: {city: name, country: country}", with: "take: {}").contains {
                $0.contains("'take' names no field")
            })
        #expect(
            messages("take: {city: name, country: country}", with: "take: {id: name}").contains {
                $0.contains("already has a field 'id'")
            })
        #expect(messages("max-km: 50", with: "max-km: -1").contains { $0.contains("'max-km' must be a distance") })
        #expect(
            messages("from-latitude: lat", with: "from-latitude: latt").contains {
                $0.contains("unknown field 'latt' in collection 'cities'; did you mean 'lat'?")
            })
        #expect(
            messages("latitude: any", with: "latitude: string").contains { $0.contains("coordinates must be numbers") })
        #expect(
            messages("lat: number", with: "lat: string").contains {
                $0.contains("'lat' is string; coordinates must be numbers")
            })
        #expect(
            messages("distance-field: cityKm", with: "distance-field: city").contains {
                $0.contains("'city' is both a 'take' field and the distance field")
            })
        #expect(
            messages("from-latitude: lat", with: "").contains {
                $0.contains("'cities' has no field 'latitude'; name its latitude field with 'from-latitude'")
            })
    }
}

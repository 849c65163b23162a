import Foundation
import Testing

@testable import SeedForge

@Suite("Emit: text report")
struct TextFormatTests {
    @Test func aReportListsEachRecordWithItsFields() throws {
        let dir = try TempDir()
        try dir.write(
            "p.yml",
            """
            name: log
            sources:
              places: {kind: json, path: d.json, fields: {name: string, category: string, rating: number, tags: array, note: string, visited: boolean}}
            outputs:
              - {file: places.json, collection: places}
              - {file: places.txt, collection: places, title: My places, fields: [category, name, rating, tags, note, visited], heading: name}
              - {file: beaches.txt, collection: places, where: {category: Beach}}
            """)
        try dir.write(
            "d.json",
            """
            [{"name":"Praia da Marinha","category":"Beach","rating":5,"tags":["cliffs","swim"],"note":"Go early.\\nParking fills by 10.","visited":true},
             {"name":"Mount Toubkal","category":"Hike","rating":null,"tags":[],"visited":false},
             {"category":"Other","rating":3.5}]
            """)
        let run = try CLI.run(["run", "p.yml", "--out", "o"], cwd: dir.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(
            try dir.read("o/log/places.txt") == """
                My places (3 records)

                Praia da Marinha
                  category: Beach
                  rating: 5
                  tags: cliffs, swim
                  note: Go early.
                      Parking fills by 10.
                  visited: true

                Mount Toubkal
                  category: Hike
                  tags: (none)
                  visited: false

                (no name)
                  category: Other
                  rating: 3.5

                """)
        #expect(
            try dir.read("o/log/beaches.txt").hasPrefix("places (1 record)\n\nPraia da Marinha\n  category: Beach\n"))
    }

    @Test func aTitleMustBeOneLine() {
        let errors = Harness.definitionErrors(
            """
            name: t
            sources:
              items: {kind: json, path: data.json, fields: {a: string}}
            outputs:
              - {file: i.json, collection: items}
              - {file: i.txt, collection: items, title: "a\\nb"}
            """)
        #expect(errors.contains { $0.message.contains("'title' must be one line") }, "\(errors)")
    }
}

import CSeedForgeSupport
import Foundation
import Testing

@testable import SeedForge

/// libxml2 allocates from a per-thread arena while a page is read (`HTMLDocument.withArena`,
/// xml_arena.c): the allocator must behave as malloc does for libxml2, and pages read in
/// arenas must give what pages read with malloc give.
@Suite("Ingest: the libxml2 arena")
struct HTMLArenaTests {
    @Test func allocationsAreAlignedKeepTheirBytesAndGrow() throws {
        seedforge_arena_begin()
        defer { seedforge_arena_end() }
        #expect(seedforge_arena_active() != 0)
        var blocks: [(UnsafeMutablePointer<UInt8>, Int)] = []
        // Enough to need several blocks (the first is 1 MiB).
        for size in stride(from: 1, through: 60_000, by: 97) {
            let pointer = try #require(seedforge_arena_malloc(size)).assumingMemoryBound(to: UInt8.self)
            #expect(Int(bitPattern: pointer) % 16 == 0)
            pointer.initialize(repeating: UInt8(truncatingIfNeeded: size), count: size)
            blocks.append((pointer, size))
        }
        for (pointer, size) in blocks {
            #expect(
                pointer[0] == UInt8(truncatingIfNeeded: size) && pointer[size - 1] == UInt8(truncatingIfNeeded: size))
        }
        // Growing keeps the bytes: in place for the newest allocation, moved otherwise.
        var grown = try #require(seedforge_arena_realloc(blocks[0].0, 10)).assumingMemoryBound(to: UInt8.self)
        #expect(grown[0] == 1)
        let newest = try #require(seedforge_arena_malloc(8)).assumingMemoryBound(to: UInt8.self)
        newest.initialize(repeating: 7, count: 8)
        let inPlace = try #require(seedforge_arena_realloc(newest, 4_000)).assumingMemoryBound(to: UInt8.self)
        #expect(inPlace == newest && inPlace[7] == 7)
        grown = try #require(seedforge_arena_realloc(blocks[1].0, 100_000)).assumingMemoryBound(to: UInt8.self)
        #expect(grown[blocks[1].1 - 1] == UInt8(truncatingIfNeeded: blocks[1].1))
        // Freeing arena memory does nothing; the text functions copy.
        seedforge_arena_free(blocks[2].0)
        #expect(blocks[2].0[0] == UInt8(truncatingIfNeeded: blocks[2].1))
        let copy = try #require(seedforge_arena_strdup("Zürich"))
        #expect(String(cString: copy) == "Zürich")
    }

    @Test func scopesNestAndOutsideThemItIsMalloc() throws {
        #expect(seedforge_arena_active() == 0)
        let outside = try #require(seedforge_arena_malloc(64))
        seedforge_arena_begin()
        seedforge_arena_begin()
        seedforge_arena_end()
        #expect(seedforge_arena_active() != 0)
        // Memory from malloc, grown and freed inside a scope, stays malloc's.
        let grown = try #require(seedforge_arena_realloc(outside, 1 << 16))
        seedforge_arena_end()
        #expect(seedforge_arena_active() == 0)
        seedforge_arena_free(grown)
        seedforge_arena_end()  // one end too many is ignored
        #expect(seedforge_arena_active() == 0)
    }

    /// Broken and well-formed pages, in several encodings, read in arenas on several
    /// threads at once and with malloc: the same texts, the same markup errors.
    @Test func pagesReadInArenasGiveWhatPagesReadWithMallocGive() throws {
        let pages: [(bytes: [UInt8], encoding: String)] = (0..<64).map { index in
            let broken = index % 3 == 0 ? "<div><p>unclosed <b>bold</i></div></span>" : ""
            let html =
                "<html><head><title>Page \(index)</title></head><body>\(broken)<ul>"
                + (0..<40).map {
                    "<li class='item i\($0)'><a href='/p/\(index)/\($0)' title='Item \($0) — café'>x</a></li>"
                }
                .joined() + "</ul></body></html>"
            return index % 4 == 1
                ? (Array(html.replacingOccurrences(of: " — ", with: " - ").data(using: .isoLatin1)!), "ISO-8859-1")
                : (Array(html.utf8), "UTF-8")
        }
        func read(_ page: (bytes: [UInt8], encoding: String)) -> [String] {
            guard let document = HTMLDocument(bytes: page.bytes, url: "p.html", encoding: page.encoding) else {
                return ["unreadable"]
            }
            return withExtendedLifetime(document) {
                ["\(document.errorCount)"]
                    + document.select("//li/a").map { HTMLDocument.attribute("title", of: $0) ?? "-" }
                    + [HTMLDocument.text(document.select("//title")[0])]
            }
        }
        let withMalloc = pages.map(read)
        let inArenas = Parallel.map(pages, threads: Threads(3), minimumChunk: 1) { page in
            HTMLDocument.withArena { read(page) }
        }
        #expect(inArenas == withMalloc)
        #expect(withMalloc[0][0] != "0", "the broken page has markup errors")
        #expect(withMalloc[1].contains("Item 3 - café"))
        // A text larger than the arena's blocks (libxml2 grows its buffers by realloc).
        let long = String(repeating: "honey and wax, ", count: 120_000)
        let big = (Array("<html><body><p id='long'>\(long)</p><p>end</p></body></html>".utf8), "UTF-8")
        func longText(_ page: (bytes: [UInt8], encoding: String)) -> String? {
            HTMLDocument(bytes: page.bytes, url: "big.html", encoding: page.encoding).map { document in
                withExtendedLifetime(document) { HTMLDocument.text(document.select("//p[@id='long']")[0]) }
            }
        }
        let bigInArena = HTMLDocument.withArena { longText(big) }
        #expect(bigInArena == longText(big))
        #expect(bigInArena?.utf8.count == long.utf8.count - 1, "collapsed: the trailing space goes")
        // A page read with malloc after arenas still parses (libxml2's per-thread last error
        // no longer points into an arena).
        #expect(read(pages[0]) == withMalloc[0])
    }
}

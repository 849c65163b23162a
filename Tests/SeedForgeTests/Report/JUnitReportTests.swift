import CLibXML2
import Foundation
import Testing

@testable import SeedForge

@Suite("Report: JUnit format")
struct JUnitReportTests {
    func validate(_ arguments: [String]) throws -> CLI.Result {
        try ValidateCommandTests().validate(arguments)
    }

    @Test func junitIsWellFormedXMLWithTheStructureCISystemsRead() throws {
        let xml = try validate(["--format", "junit"]).stdout
        let document = try #require(
            xml.withCString {
                xmlReadMemory($0, Int32(strlen($0)), "report.xml", "UTF-8", Int32(XML_PARSE_NONET.rawValue))
            })
        defer { xmlFreeDoc(document) }
        let context = try #require(xmlXPathNewContext(document))
        defer { xmlXPathFreeContext(context) }
        func strings(_ expression: String) -> [String] {
            guard let result = xmlXPathEvalExpression(expression, context) else { return [] }
            defer { xmlXPathFreeObject(result) }
            guard let set = result.pointee.nodesetval else { return [] }
            return (0..<Int(set.pointee.nodeNr)).compactMap { index in
                guard let node = set.pointee.nodeTab[index], let content = xmlNodeGetContent(node) else { return nil }
                defer { seedforge_xml_free(content) }
                return String(cString: content)
            }
        }
        #expect(strings("/testsuites/@tests") == ["7"])
        #expect(strings("/testsuites/@failures") == ["6"])
        #expect(strings("/testsuites/@errors") == ["0"])
        #expect(strings("/testsuites/testsuite/@name") == ["validation-demo"])
        #expect(
            strings("/testsuites/testsuite/testcase/@name") == [
                "required", "range", "url", "unique", "length", "type", "json-syntax",
            ])
        #expect(strings("//testcase[@name='range']/failure/@message") == ["2 findings"])
        #expect(strings("//testcase[@name='length']/failure").isEmpty)
        #expect(strings("//testcase[@name='length']/system-out").first?.contains("shops-3.json:3:27: warning") == true)
        #expect(
            strings("//testcase[@name='json-syntax']/failure").first
                == "Fixtures/validation/shops-4.json:3:27: error: unterminated string (truncated file?)")
    }

    @Test func junitEscapesMarkupAndForbiddenCharacters() {
        #expect(JUnitReport.escape("<a & \"b\">\u{7}") == "&lt;a &amp; &quot;b&quot;&gt;\u{FFFD}")
    }
}

import HearthFiles
import Testing

@Suite("Header values with parameters")
struct MIMEHeaderValueTests {
    @Test func parsesTokensAndQuotedStrings() {
        let value = MIMEHeaderValue(parsing: " Form-Data ; name=\"a;b\" ; filename=\"x\\\\y\\\"z\"; size=10;flag; =v")
        #expect(value.value == "form-data")
        #expect(value["NAME"] == "a;b")
        #expect(value["filename"] == "x\\y\"z")
        #expect(value["size"] == "10")
        #expect(value["flag"] == nil)
        #expect(value.parameters.map(\.name) == ["name", "filename", "size"])
    }

    @Test func unterminatedQuoteRunsToTheEnd() {
        #expect(MIMEHeaderValue(parsing: "a/b; boundary=\"abc").self["boundary"] == "abc")
    }
}

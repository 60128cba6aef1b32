import Testing

import HearthCore

@Suite("Query strings and form bodies")
struct FormBodyTests {
    @Test func formBodyTurnsPlusIntoSpaceBeforeDecoding() {
        let fields = parseFormBody("grant_type=refresh_token&refresh_token=a-b_c&name=Ada+Lovelace&sum=1%2B1&both=x+%2B+y")
        #expect(fields == ["grant_type": "refresh_token", "refresh_token": "a-b_c", "name": "Ada Lovelace", "sum": "1+1", "both": "x + y"])
    }

    @Test func queryStringKeepsPlusLiteral() {
        #expect(parseQueryString("q=a+b&e=%C3%A9&flag&bad=%zz") == ["q": "a+b", "e": "é", "flag": "", "bad": "%zz"])
        #expect(parseQueryString(nil).isEmpty)
        #expect(parseFormBody("").isEmpty)
    }

    @Test func laterDuplicatesWin() {
        #expect(parseFormBody("a=1&a=2+3") == ["a": "2 3"])
    }
}

import Testing

import HearthCore

@Suite("Query strings and form bodies")
struct FormBodyTests {
    @Test func formBodyTurnsPlusIntoSpaceBeforeDecoding() {
        let fields = parseFormBody("grant_type=refresh_token&refresh_token=a-b_c&name=Ada+Lovelace&sum=1%2B1&both=x+%2B+y")
        #expect(fields == ["grant_type": "refresh_token", "refresh_token": "a-b_c", "name": "Ada Lovelace", "sum": "1+1", "both": "x + y"])
    }

    // Firebase's servers read `+` in a query string as a space (firebase-admin-python #189), and Python's
    // `requests` sends spaces that way; a literal plus is `%2B`.
    @Test func queryStringReadsPlusAsSpace() {
        #expect(
            parseQueryString("q=a+b&e=%C3%A9&flag&bad=%zz+x&equalTo=%22Alice+Smith%22&plus=%2B1&a+name=1")
                == ["q": "a b", "e": "é", "flag": "", "bad": "%zz x", "equalTo": "\"Alice Smith\"", "plus": "+1", "a name": "1"])
        #expect(parseQueryString(nil).isEmpty)
        #expect(parseFormBody("").isEmpty)
    }

    @Test func laterDuplicatesWin() {
        #expect(parseFormBody("a=1&a=2+3") == ["a": "2 3"])
    }
}

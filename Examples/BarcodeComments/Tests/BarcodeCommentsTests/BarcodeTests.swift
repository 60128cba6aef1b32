import BarcodeCommentsCore
import Testing

@Suite("Barcode validation")
struct BarcodeTests {
    @Test(arguments: [
        ("4006381333931", Barcode.Symbology.ean13, "4006381333931"),
        (" 4006381333931\n", .ean13, "4006381333931"),
        ("96385074", .ean8, "96385074"),
        ("036000291452", .upcA, "0036000291452"),
        ("04252614", .upcE, "0042100005264"),
        // Valid as EAN-8 and as UPC-E (012345000065): an 8-digit code is EAN-8 when that check holds.
        ("01234565", .ean8, "01234565"),
    ])
    func productCodesAreCheckedAndKeyedAsGTINs(scanned: String, symbology: Barcode.Symbology, key: String) throws {
        let code = try Barcode(scanned: scanned)
        #expect(code.symbology == symbology)
        #expect(code.key == key)
        #expect(Barcode(key: code.key)?.key == key)
    }

    @Test func upcAAndItsEAN13FormAreOneTopic() throws {
        #expect(try Barcode(scanned: "036000291452").key == Barcode(scanned: "0036000291452").key)
        // UPC-E 04252614 is UPC-A 042100005264.
        #expect(try Barcode(scanned: "04252614").key == Barcode(scanned: "042100005264").key)
    }

    @Test(arguments: [
        ("4006381333932", Barcode.Symbology.ean13), ("96385075", .ean8), ("036000291453", .upcA), ("4006381333913", .ean13),
    ])
    func mistypedProductCodesAreRefusedWithAClearMessage(scanned: String, symbology: Barcode.Symbology) {
        #expect(throws: BarcodeError.wrongCheckDigit(symbology)) { try Barcode(scanned: scanned) }
        let message = (try? Barcode(scanned: scanned)).map { _ in "" } ?? BarcodeError.wrongCheckDigit(symbology).description
        #expect(message.contains("check digit"))
    }

    @Test func otherSymbologiesAreKeptAsTextTrimmedAndBounded() throws {
        let qr = try Barcode(scanned: "  https://example.com/p?id=7#top  ")
        #expect(qr.symbology == .text)
        #expect(qr.displayText == "https://example.com/p?id=7#top")
        #expect(qr.key.hasPrefix("t-"))
        #expect(!qr.key.contains(where: { ".#$[]/".contains($0) }))
        #expect(Barcode(key: qr.key)?.displayText == qr.displayText)
        // Digits of another length (ITF-14, Code 128 numbers) are text too.
        #expect(try Barcode(scanned: "12345").symbology == .text)
        let unicode = try Barcode(scanned: "Grüße 😀")
        #expect(Barcode(key: unicode.key)?.displayText == "Grüße 😀")

        #expect(throws: BarcodeError.empty) { try Barcode(scanned: " \n ") }
        #expect(throws: BarcodeError.tooLong(max: 80)) { try Barcode(scanned: String(repeating: "a", count: 81)) }
        #expect(throws: BarcodeError.tooLong(max: 80)) { try Barcode(scanned: String(repeating: "😀", count: 30)) }
        #expect(throws: BarcodeError.invalidCharacters) { try Barcode(scanned: "a\u{7}b") }
        _ = try Barcode(scanned: String(repeating: "a", count: 80))
    }

    @Test func keysThatAreNotTopicKeysAreNotBarcodes() {
        #expect(Barcode(key: "4006381333932") == nil)
        #expect(Barcode(key: "t-%ZZ") == nil)
        #expect(Barcode(key: "t-a.b") == nil)
        #expect(Barcode(key: "036000291452") == nil)  // UPC-A is keyed in its 13-digit form
    }
}

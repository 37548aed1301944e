import LupineImage
import Testing

@Suite struct ImageTests {
    @Test func formatsHaveTheirUsualNames() {
        #expect(ImageFormat.png.displayName == "PNG")
        #expect(ImageFormat.jpeg.displayName == "JPEG")
    }
}

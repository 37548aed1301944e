import Hummingbird

extension HTTPBinRoutes {
    /// `/json`, `/xml`, `/plist`, `/image`, `/image/png` and `/image/jpeg`.
    func registerDocuments(on router: Router<Context>) {
        router.get("/json") { _, _ in
            try Response.json(SlideshowDocuments.json)
        }
        router.get("/xml") { _, _ in
            Response.bytes(Array(SlideshowDocuments.xml.utf8), contentType: "application/xml")
        }
        router.get("/plist") { _, _ in
            Response.bytes(Array(SlideshowDocuments.propertyList.utf8), contentType: "application/x-plist")
        }
        router.get("/image/png") { _, _ in
            Response.bytes(try PNGImage.sample(), contentType: "image/png")
        }
        router.get("/image/jpeg") { _, _ in
            Response.bytes(JPEGImage.sample, contentType: "image/jpeg")
        }
        router.get("/image") { request, _ in
            let accept = (request.headers[.accept] ?? "").lowercased()
            if accept.contains("image/jpeg") {
                return Response.bytes(JPEGImage.sample, contentType: "image/jpeg")
            }
            if accept.contains("image/png") || accept.contains("image/*") {
                return Response.bytes(try PNGImage.sample(), contentType: "image/png")
            }
            return try Response.json(
                .object([
                    "message": .string("Client did not request a supported media type."),
                    "accept": .array(["image/png", "image/jpeg", "image/*"].map(JSONValue.string)),
                ]),
                status: .notAcceptable
            )
        }
    }
}

import Hummingbird

extension HTTPBinRoutes {
    /// The gated endpoints (ours; httpbin has none), for tests that need a response held back
    /// until they say so (a download that occupies a slot, requests that must overlap):
    ///
    /// - `GET /gated/:key/image/png`: counted under `gated-KEY` (see
    ///   ``LupineTestServer/attempts(forKey:)``), then answers the `/image/png` image once gate
    ///   KEY is open; 503 when too many gates are in use.
    /// - `GET|POST /gated/:key/open`: opens gate KEY for the requests waiting and any later one;
    ///   answers `{"key", "released"}`, the number of requests let through.
    func registerGates(on router: Router<Context>) {
        router.get("/gated/:key/image/png") { _, context in
            let key = try Self.attemptKey(context)
            _ = attempts.increment("gated-\(key)")
            guard await gates.wait(for: key) else {
                throw HTTPError(.serviceUnavailable, message: "Too many gates in use")
            }
            return Response.bytes(try PNGImage.sample(), contentType: "image/png")
        }
        on("/gated/:key/open", methods: [.get, .post], router: router) { _, context in
            let key = try Self.attemptKey(context)
            let released = gates.open(key)
            return try Response.json(.object(["key": .string(key), "released": .integer(released)]))
        }
    }
}

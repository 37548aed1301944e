import Hummingbird

extension HTTPBinRoutes {
    /// `/status/:code`: an empty response with that status (200...599), with the headers httpbin
    /// adds for redirects and authentication challenges.
    func registerStatus(on router: Router<Context>) {
        on("/status/:code", methods: Self.anyMethod, router: router) { _, context in
            let code = try Self.integer("code", in: context, range: 200...599)
            var headers: HTTPFields = [:]
            switch code {
            case 301, 302, 303, 305, 307:
                headers[.location] = "/redirect/1"
            case 401:
                headers[.wwwAuthenticate] = #"Basic realm="Fake Realm""#
            case 407:
                headers[.proxyAuthenticate] = #"Basic realm="Fake Realm""#
            case 418:
                return Response.bytes(Array("I'm a teapot\n".utf8), contentType: "text/plain", status: .init(code: code))
            default:
                break
            }
            return Response(status: .init(code: code), headers: headers)
        }
    }
}

import Hummingbird

extension HTTPBinRoutes {
    /// `/redirect/:n`, `/relative-redirect/:n`, `/absolute-redirect/:n` (302 chains ending at
    /// `/get`) and `/redirect-to?url=&status_code=`.
    func registerRedirects(on router: Router<Context>) {
        router.get("/redirect/:n") { request, context in
            let remaining = try Self.integer("n", in: context, range: 1...Int.max)
            if FormURLEncoding.firstValue(named: "absolute", in: request.uri.query)?.lowercased() == "true" {
                return Response.redirecting(to: absoluteRedirectTarget(remaining: remaining, request: request))
            }
            return Response.redirecting(to: Self.relativeRedirectTarget(remaining: remaining))
        }
        router.get("/relative-redirect/:n") { _, context in
            let remaining = try Self.integer("n", in: context, range: 1...Int.max)
            return Response.redirecting(to: Self.relativeRedirectTarget(remaining: remaining))
        }
        router.get("/absolute-redirect/:n") { request, context in
            let remaining = try Self.integer("n", in: context, range: 1...Int.max)
            return Response.redirecting(to: absoluteRedirectTarget(remaining: remaining, request: request))
        }
        on("/redirect-to", methods: Self.anyMethod, router: router) { request, _ in
            let query = request.uri.query
            guard let target = FormURLEncoding.firstValue(named: "url", in: query) else {
                throw HTTPError(.badRequest, message: "Missing url query parameter")
            }
            let requested = FormURLEncoding.firstValue(named: "status_code", in: query).flatMap { Int($0) }
            let code = requested.flatMap { (300...399).contains($0) ? $0 : nil } ?? 302
            return Response.redirecting(to: target, status: .init(code: code))
        }
    }

    private static func relativeRedirectTarget(remaining: Int) -> String {
        remaining == 1 ? "/get" : "/relative-redirect/\(remaining - 1)"
    }

    private func absoluteRedirectTarget(remaining: Int, request: Request) -> String {
        let origin = "\(scheme)://\(request.head.authority ?? "localhost")"
        return remaining == 1 ? "\(origin)/get" : "\(origin)/absolute-redirect/\(remaining - 1)"
    }
}

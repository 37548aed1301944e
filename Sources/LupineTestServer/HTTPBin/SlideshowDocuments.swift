/// httpbin's sample documents served by `/json` and `/xml`.
enum SlideshowDocuments {
    static let json: JSONValue = .object([
        "slideshow": .object([
            "author": .string("Yours Truly"),
            "date": .string("date of publication"),
            "slides": .array([
                .object([
                    "title": .string("Wake up to WonderWidgets!"),
                    "type": .string("all"),
                ]),
                .object([
                    "items": .array([
                        .string("Why <em>WonderWidgets</em> are great"),
                        .string("Who <em>buys</em> WonderWidgets"),
                    ]),
                    "title": .string("Overview"),
                    "type": .string("all"),
                ]),
            ]),
            "title": .string("Sample Slide Show"),
        ])
    ])

    static let xml = """
        <?xml version='1.0' encoding='us-ascii'?>

        <!--  A SAMPLE set of slides  -->

        <slideshow 
            title="Sample Slide Show"
            date="Date of publication"
            author="Yours Truly"
            >

            <!-- TITLE SLIDE -->
            <slide type="all">
              <title>Wake up to WonderWidgets!</title>
            </slide>

            <!-- OVERVIEW -->
            <slide type="all">
                <title>Overview</title>
                <item>Why <em>WonderWidgets</em> are great</item>
                <item/>
                <item>Who <em>buys</em> WonderWidgets</item>
            </slide>

        </slideshow>

        """
}

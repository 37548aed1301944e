/// httpbin's sample documents served by `/json` and `/xml`, and the same slideshow as an XML
/// property list for `/plist` (Lupine's addition, for property-list clients).
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

    static let propertyList = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
            <key>slideshow</key>
            <dict>
                <key>author</key><string>Yours Truly</string>
                <key>date</key><string>date of publication</string>
                <key>slides</key>
                <array>
                    <dict>
                        <key>title</key><string>Wake up to WonderWidgets!</string>
                        <key>type</key><string>all</string>
                    </dict>
                    <dict>
                        <key>items</key>
                        <array>
                            <string>Why &lt;em&gt;WonderWidgets&lt;/em&gt; are great</string>
                            <string>Who &lt;em&gt;buys&lt;/em&gt; WonderWidgets</string>
                        </array>
                        <key>title</key><string>Overview</string>
                        <key>type</key><string>all</string>
                    </dict>
                </array>
                <key>title</key><string>Sample Slide Show</string>
            </dict>
        </dict>
        </plist>
        """
}

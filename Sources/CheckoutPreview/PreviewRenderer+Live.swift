import CheckoutCore
import CheckoutTheme

extension PreviewRenderer {
    /// A working page of a screen: the same slots at the same frames as the picture, inside one form that posts to
    /// `live.action`, with inputs, buttons and the page's own font files, stylesheet-free and script-light.
    ///
    /// The page holds the screen twice, painted with `light` and with `dark`; `prefers-color-scheme` shows one and
    /// hides the other (a hidden copy is out of the tab order and the accessibility tree). Both renderers share the
    /// locale and width. The script (`assets/checkout.js`) only adds typing-time validation and number formatting:
    /// every control works without it.
    public static func livePage(_ screen: PreviewScreen, light: PreviewRenderer, dark: PreviewRenderer, content: ScreenContent,
                                live: LivePage, title: String) -> String {
        var html = pageHead(light: light, dark: dark, live: live, title: title)
        html += "<body data-screen=\"\(screen.rawValue)\">\n"
        for renderer in [light, dark] {
            html += renderer.liveBody(screen, content: content, live: live)
        }
        html += "</body>\n</html>\n"
        return html
    }

    /// A page outside the laid-out screens (a result, the sandbox's 3-D Secure page): a title, a message and buttons,
    /// painted with the same tokens, in the same form and with the same copies as `livePage`.
    public static func messagePage(light: PreviewRenderer, dark: PreviewRenderer, live: LivePage, title: String, heading: String,
                                   message: String, buttons: [LivePage.Extra], name: String) -> String {
        var html = pageHead(light: light, dark: dark, live: live, title: title)
        html += "<body data-screen=\"\(HTMLText.escape(name))\">\n"
        for renderer in [light, dark] {
            html += renderer.messageBody(live: live, heading: heading, message: message, buttons: buttons)
        }
        html += "</body>\n</html>\n"
        return html
    }

    private static func pageHead(light: PreviewRenderer, dark: PreviewRenderer, live: LivePage, title: String) -> String {
        let fonts = EmbeddedFont.faces.map { face in
            "@font-face{font-family:'\(EmbeddedFont.family)';font-style:normal;font-weight:\(face.weight <= 500 ? "1 500" : "501 1000");"
                + "src:url(\(HTMLText.escape(live.assets))/inter-\(face.weight).woff2) format('woff2');}"
        }.joined()
        return """
            <!DOCTYPE html>
            <html lang="\(HTMLText.escape(light.strings.locale.rawValue))">
            <head>
            <meta charset="utf-8"/>
            <meta name="viewport" content="width=device-width, initial-scale=1"/>
            <meta name="color-scheme" content="light dark"/>
            <meta name="referrer" content="no-referrer"/>
            <link rel="icon" href="data:,"/>
            <title>\(HTMLText.escape(title))</title>
            <style>\(fonts)html,body{margin:0;padding:0;background:\(light.theme.color.background.hex);}\
            .ck-page{position:relative;margin:0 auto;font-kerning:none;font-variant-ligatures:none;}\
            .ck-page [data-slot]{position:absolute;box-sizing:border-box;overflow:hidden;margin:0;}\
            .ck-page button{font:inherit;cursor:pointer;}.ck-page button[data-slot]{border:0;text-align:start;padding-top:0;padding-bottom:0;}.ck-page [data-line]{display:block;white-space:nowrap;}\
            .ck-page :focus-visible{outline:2px solid;outline-offset:2px;}\
            .ck-page input:not([type=radio]):not([type=checkbox]):focus-visible{outline:none;}\
            .ck-page [data-slot]:has(> input:not([type=radio]):not([type=checkbox]):focus-visible){outline:2px solid;outline-offset:2px;}\
            .ck-light,.ck-light *{outline-color:\(light.theme.color.text.primary.hex);}\
            .ck-dark,.ck-dark *{outline-color:\(dark.theme.color.text.primary.hex);}\
            .ck-page label:has(> .ck-hidden-control:focus-visible){outline:2px solid;outline-offset:2px;}\
            \(chosenRing(light, "ck-light"))\(chosenRing(dark, "ck-dark"))\
            .ck-hidden-control{position:absolute;opacity:0;width:1px;height:1px;margin:0;}\
            .ck-dark{display:none;}\
            @media (prefers-color-scheme: dark){html,body{background:\(dark.theme.color.background.hex);}.ck-light{display:none;}\
            .ck-dark{display:block;}}</style>
            <script src="\(HTMLText.escape(live.assets))/checkout.js" defer="defer"></script>
            </head>

            """
    }

    /// The ring of a chosen radio's label (the network selector's chip): drawn by the stylesheet so that it follows the
    /// shopper's choice without a script (over the chip's inline border, hence `!important`).
    private static func chosenRing(_ renderer: PreviewRenderer, _ copy: String) -> String {
        let selected = renderer.theme.color.border.outlined.selected.hex
        return ".\(copy) label:has(> .ck-hidden-control:checked){border-color:\(selected) !important;"
            + "box-shadow:inset 0 0 0 \(PreviewStyle.px(renderer.theme.borderWidth.medium)) \(selected) !important;}"
    }

    /// One copy of a live screen: its form, the notice above the frames, the frames, and the extras under them.
    func liveBody(_ screen: PreviewScreen, content: ScreenContent, live: LivePage) -> String {
        let result = layout(screen, content: content, saveChoice: live.saveChoice != nil, search: live.search != nil)
        let painter = SlotPainter(theme: theme, strings: strings, content: content, screen: screen,
                                  form: cardForm(screen, content, saveChoice: live.saveChoice != nil), live: live, mode: mode)
        var top = margin
        var inner = "", outside = ""
        if let search = live.search {
            outside = "<form id=\"ck-\(mode.rawValue)-search\" method=\"get\" action=\"\(HTMLText.escape(search.action))\" role=\"search\" "
                + "aria-label=\"\(HTMLText.escape(search.label))\"></form>\n"
        }
        if let notice = live.notice {
            let (element, height) = noticeElement(notice, top: top)
            inner += element
            top += height + theme.space.medium
        }
        for frame in result.frames {
            inner += element(frame, painter: painter, top: top) + "\n"
        }
        let (extras, extrasHeight) = extrasElements(live.extras, top: top + result.height + theme.space.large)
        inner += extras
        let height = top + result.height + (extrasHeight > 0 ? theme.space.large + extrasHeight : 0) + margin
        return wrap(inner, live: live, height: height, before: outside)
    }

    /// One copy of a message page: heading, message, and the buttons stacked under them.
    func messageBody(live: LivePage, heading: String, message: String, buttons: [LivePage.Extra]) -> String {
        let type = theme.typography, color = theme.color
        var top = margin
        let (heading, headingHeight) = textBlock(heading, type.titleLarge, attributes: "role=\"heading\" aria-level=\"1\" data-part=\"heading\"",
                                                 top: top)
        var inner = heading
        top += headingHeight + theme.space.medium
        if let notice = live.notice {
            let (element, height) = noticeElement(notice, top: top)
            inner += element
            top += height + theme.space.medium
        }
        let (text, textHeight) = textBlock(message, type.bodyMedium, attributes: "data-part=\"message\"", top: top)
        inner += text
        top += textHeight + theme.space.large
        let buttonHeight = max(theme.component.buttonHeight, theme.component.minTouchTarget)
        for (offset, button) in buttons.enumerated() {
            let primary = offset == 0
            let style = (primary ? "background:\(color.text.primary.hex);color:\(color.background.hex);border:0;"
                         : "background:\(color.background.hex);color:\(color.text.primary.hex);"
                            + PreviewStyle.border(theme.borderWidth.thin, color.border.outlined.default))
                + "border-radius:\(PreviewStyle.px(theme.radius.medium));display:flex;align-items:center;justify-content:center;"
                + "white-space:nowrap;text-decoration:none;" + PreviewStyle.font(type.titleLarge)
            inner += control(button, top: top, height: buttonHeight, style: style)
            top += buttonHeight + theme.space.small
        }
        return wrap(inner, live: live, height: top + margin)
    }

    private func wrap(_ inner: String, live: LivePage, height: Double, before: String = "") -> String {
        let hidden = live.hidden.map { "<input type=\"hidden\" name=\"\(HTMLText.escape($0.name))\" value=\"\(HTMLText.escape($0.value))\"/>" }
            .joined()
        return "<div class=\"ck-page ck-\(mode.rawValue)\" style=\"width:\(PreviewStyle.px(width));height:\(PreviewStyle.px(height));"
            + "background:\(theme.color.background.hex);\">\n" + before
            + "<form method=\"post\" action=\"\(HTMLText.escape(live.action))\">\(hidden)\n\(inner)</form>\n</div>\n"
    }

    /// A block of text across the content width at `top`, in `style` and the primary text colour: its element and height.
    private func textBlock(_ text: String, _ style: Typography, attributes: String, top: Double) -> (String, Double) {
        let lines = PreviewStyle.lines(text, style, width: contentWidth)
        let height = Double(lines.count) * style.lineHeight
        return (positioned(attributes, top: top, height: height, style: "color:\(theme.color.text.primary.hex);" + PreviewStyle.font(style),
                           content: lines.html), height)
    }

    private func noticeElement(_ notice: String, top: Double) -> (String, Double) {
        let type = theme.typography, color = theme.color
        let padding = theme.space.medium
        let lines = PreviewStyle.lines(notice, type.bodyMedium, width: max(1, contentWidth - 2 * padding))
        let height = Double(lines.count) * type.bodyMedium.lineHeight + 2 * padding
        let element = positioned("role=\"alert\" data-part=\"notice\"", top: top, height: height,
                                 style: "padding:\(PreviewStyle.px(padding));border-radius:\(PreviewStyle.px(theme.radius.medium));"
                                    + PreviewStyle.border(theme.borderWidth.medium, color.border.outlined.error)
                                    + "color:\(color.text.primary.hex);background:\(color.surface.hex);" + PreviewStyle.font(type.bodyMedium),
                                 content: lines.html)
        return (element, height)
    }

    private func extrasElements(_ extras: [LivePage.Extra], top: Double) -> (String, Double) {
        guard !extras.isEmpty else { return ("", 0) }
        let type = theme.typography, color = theme.color
        let height = theme.component.minTouchTarget
        var y = top, html = ""
        for extra in extras {
            let style = "background:transparent;border:0;padding:0;display:flex;align-items:center;justify-content:center;"
                + "text-decoration:underline;color:\(color.text.primary.hex);" + PreviewStyle.font(type.bodyMedium)
            html += control(extra, top: y, height: height, style: style)
            y += height + theme.space.xsmall
        }
        return (html, y - theme.space.xsmall - top)
    }

    private func control(_ extra: LivePage.Extra, top: Double, height: Double, style: String) -> String {
        let box = "position:absolute;box-sizing:border-box;left:\(PreviewStyle.px(margin));top:\(PreviewStyle.px(top));"
            + "width:\(PreviewStyle.px(contentWidth));height:\(PreviewStyle.px(height));"
        if let href = extra.href {
            return "<a data-part=\"extra\" href=\"\(HTMLText.escape(href))\" style=\"\(HTMLText.escape(box + style))\">"
                + "\(HTMLText.escape(extra.label))</a>\n"
        }
        return "<button data-part=\"extra\" type=\"submit\" name=\"action\" value=\"\(HTMLText.escape(extra.action ?? ""))\" "
            + "style=\"\(HTMLText.escape(box + style))\">\(HTMLText.escape(extra.label))</button>\n"
    }

    private func positioned(_ attributes: String, top: Double, height: Double, style: String, content: String) -> String {
        let box = "position:absolute;box-sizing:border-box;left:\(PreviewStyle.px(margin));top:\(PreviewStyle.px(top));"
            + "width:\(PreviewStyle.px(contentWidth));min-height:\(PreviewStyle.px(height));"
        return "<div \(attributes) style=\"\(HTMLText.escape(box + style))\">" + content + "</div>\n"
    }
}

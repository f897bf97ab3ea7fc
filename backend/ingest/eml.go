package ingest

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"path"
	"strings"

	"golang.org/x/net/html/charset"
)

// readEML reads an e-mail (RFC 5322, MIME): its headers (From, To, Cc,
// Date, Subject) and its body, plain text preferred over HTML where both
// are given. Attachments are returned in doc.Attachments to be ingested as
// documents of their own.
func readEML(ctx context.Context, doc *Document, data []byte) error {
	msg, err := readMessage(data)
	if err != nil {
		return newError(ErrCorrupt, doc.Path, "its mail headers are malformed", err)
	}
	dec := mimeDecoder()
	header := func(k string) string {
		v := msg.Header.Get(k)
		if d, err := dec.DecodeHeader(v); err == nil {
			v = d
		}
		return cleanLine(v)
	}
	if header("From") == "" && header("Subject") == "" && header("Date") == "" && header("To") == "" {
		return newError(ErrCorrupt, doc.Path, "it has no From, To, Date or Subject header, so it is not a mail", nil)
	}
	m := &mailReader{ctx: ctx}
	m.part(textproto.MIMEHeader(msg.Header), msg.Body, 0)
	if err := ctx.Err(); err != nil {
		return err
	}

	w := newBuilder(MaxText)
	subject := header("Subject")
	var head []string
	for _, k := range []string{"From", "To", "Cc", "Date", "Subject"} {
		if v := header(k); v != "" {
			head = append(head, k+": "+v)
		}
	}
	if len(m.attachments) > 0 {
		names := make([]string, len(m.attachments))
		for i, a := range m.attachments {
			names[i] = a.Name
		}
		head = append(head, "Attachments: "+strings.Join(names, ", "))
	}
	w.para(strings.Join(head, "\n"))
	for _, b := range m.bodies {
		if b.html {
			root, err := parseHTML(b.data, b.contentType())
			if err == nil {
				extractHTML(w, root)
			}
		} else {
			w.pre(string(b.data))
		}
	}
	if err := w.finish(doc, "the mail has no text"); err != nil {
		return err
	}
	doc.Attachments = m.attachments
	if len(m.skipped) > 0 {
		doc.Warnings = append(doc.Warnings, m.skipped...)
	}
	if from, err := mail.ParseAddress(header("From")); err == nil {
		doc.Author = cleanLine(from.Name)
		if doc.Author == "" {
			doc.Author = from.Address
		}
	} else {
		doc.Author = header("From")
	}
	doc.Title = chooseTitle(subject, doc.Pages, doc.Path)
	return nil
}

// readMessage parses a message, accepting bare "\n" line ends and a
// leading mbox "From " line.
func readMessage(data []byte) (*mail.Message, error) {
	if bytes.HasPrefix(data, []byte("From ")) {
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	return mail.ReadMessage(bytes.NewReader(data))
}

func mimeDecoder() *mime.WordDecoder {
	return &mime.WordDecoder{CharsetReader: func(label string, r io.Reader) (io.Reader, error) {
		return charset.NewReaderLabel(label, r)
	}}
}

// mailBody is one text part of a mail, decoded to UTF-8.
type mailBody struct {
	data []byte
	html bool
	utf8 bool // decoded from a declared character set
}

// contentType is what parseHTML is told about an HTML body's encoding.
func (b mailBody) contentType() string {
	if b.utf8 {
		return "text/html; charset=utf-8"
	}
	return "text/html"
}

// mailReader walks a mail's MIME tree.
type mailReader struct {
	ctx         context.Context
	bodies      []mailBody
	attachments []Attachment
	skipped     []string
	parts       int
	size        int
	rootHTML    bool // for MHTML: stop at the first HTML part
}

// part reads one MIME part with header h and (transfer-encoded) body r.
func (m *mailReader) part(h textproto.MIMEHeader, r io.Reader, depth int) {
	if m.parts++; m.parts > MaxMIMEParts || depth > 20 || m.ctx.Err() != nil {
		return
	}
	ctype, params, disp, name := partHeader(h)
	if strings.HasPrefix(ctype, "multipart/") {
		m.multipart(ctype, params["boundary"], r, depth)
		return
	}
	m.leaf(h, r, ctype, params, disp, name)
}

// partHeader reads a part's media type (text/plain when missing or unreadable), its
// disposition, and the file name either header gives, MIME-word decoded.
func partHeader(h textproto.MIMEHeader) (ctype string, params map[string]string, disp, name string) {
	ctype, params, err := mime.ParseMediaType(h.Get("Content-Type"))
	if err != nil || ctype == "" {
		ctype, params = "text/plain", map[string]string{}
	}
	disp, dparams, _ := mime.ParseMediaType(h.Get("Content-Disposition"))
	name = dparams["filename"]
	if name == "" {
		name = params["name"]
	}
	if name != "" {
		if d, err := mimeDecoder().DecodeHeader(name); err == nil {
			name = d
		}
	}
	return ctype, params, disp, name
}

// multipart reads the parts of a multipart body of type ctype, one level down.
func (m *mailReader) multipart(ctype, boundary string, r io.Reader, depth int) {
	if boundary == "" {
		return
	}
	mr := multipart.NewReader(r, boundary)
	var alts []mailBody
	for {
		p, err := mr.NextRawPart()
		if err != nil {
			break
		}
		if ctype == "multipart/alternative" {
			// Read the alternatives apart and keep the plainest.
			sub := &mailReader{ctx: m.ctx, parts: m.parts, size: m.size}
			sub.part(p.Header, p, depth+1)
			m.parts, m.size = sub.parts, sub.size
			alts = append(alts, sub.bodies...)
			m.attachments = append(m.attachments, sub.attachments...)
			continue
		}
		m.part(p.Header, p, depth+1)
		if m.rootHTML && len(m.bodies) > 0 {
			return
		}
	}
	if len(alts) > 0 {
		best := alts[0]
		for _, a := range alts {
			if !a.html {
				best = a
				break
			}
		}
		m.bodies = append(m.bodies, best)
	}
}

// leaf reads a part that is not multipart: an attachment, a text body, or nothing kept.
func (m *mailReader) leaf(h textproto.MIMEHeader, r io.Reader, ctype string, params map[string]string, disp, name string) {
	body, err := io.ReadAll(io.LimitReader(transferDecoder(h.Get("Content-Transfer-Encoding"), r), int64(MaxTextFileSize-m.size)+1))
	m.size += len(body)
	if m.size > MaxTextFileSize {
		m.skipped = append(m.skipped, "The mail is very large; parts past "+humanBytes(MaxTextFileSize)+" were skipped.")
		return
	}
	if err != nil && len(body) == 0 {
		m.skipped = append(m.skipped, fmt.Sprintf("A part of the mail could not be decoded (%s).", shortError(err)))
		return
	}
	isText := ctype == "text/plain" || ctype == "text/html"
	if (strings.EqualFold(disp, "attachment") || !isText) && !m.rootHTML {
		m.attach(ctype, name, body)
		return
	}
	if !isText {
		return
	}
	utf := false
	if cs := params["charset"]; cs != "" {
		if r, err := charset.NewReaderLabel(cs, bytes.NewReader(body)); err == nil {
			if d, err := io.ReadAll(r); err == nil {
				body, utf = d, true
			}
		}
	}
	if ctype == "text/plain" {
		body = []byte(decodeText(body))
	}
	m.bodies = append(m.bodies, mailBody{data: body, html: ctype == "text/html", utf8: utf})
}

// attach keeps a part as an attachment when it has a name and bytes, up to MaxAttachments.
func (m *mailReader) attach(ctype, name string, body []byte) {
	if ctype == "message/rfc822" && name == "" {
		name = "attached message.eml"
	}
	if name == "" || len(body) == 0 {
		return // inline images and the like
	}
	if len(m.attachments) >= MaxAttachments {
		m.skipped = append(m.skipped, fmt.Sprintf("Only the first %d attachments were kept.", MaxAttachments))
		return
	}
	m.attachments = append(m.attachments, Attachment{Name: safeName(name), Data: body})
}

// transferDecoder undoes a Content-Transfer-Encoding.
func transferDecoder(enc string, r io.Reader) io.Reader {
	switch strings.ToLower(strings.TrimSpace(enc)) {
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, &base64Cleaner{r: r})
	case "quoted-printable":
		return quotedprintable.NewReader(r)
	}
	return r
}

// base64Cleaner drops the line breaks and stray characters that mail
// bodies put between base64 groups.
type base64Cleaner struct{ r io.Reader }

func (c *base64Cleaner) Read(p []byte) (int, error) {
	for {
		n, err := c.r.Read(p)
		k := 0
		for _, b := range p[:n] {
			if b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '+' || b == '/' || b == '=' {
				p[k] = b
				k++
			}
		}
		if k > 0 || err != nil {
			return k, err
		}
	}
}

// safeName reduces an attachment's name to a base name that is safe on
// every file system.
func safeName(name string) string {
	name = path.Base(strings.ReplaceAll(name, `\`, "/"))
	name = strings.Map(func(r rune) rune {
		if r < 0x20 || strings.ContainsRune(`<>:"/\|?*`, r) {
			return '_'
		}
		return r
	}, cleanLine(name))
	name = strings.Trim(name, ". ")
	if name == "" {
		name = "attachment"
	}
	if len(name) > 120 {
		ext := path.Ext(name)
		if len(ext) > 10 {
			ext = ""
		}
		name = name[:120-len(ext)] + ext
		name = strings.ToValidUTF8(name, "")
	}
	return name
}

// readMHTML reads a web page saved whole (MHTML, "Webpage, single file"): a
// MIME message whose first HTML part is the page.
func readMHTML(ctx context.Context, doc *Document, data []byte) error {
	msg, err := readMessage(data)
	if err != nil {
		return newError(ErrCorrupt, doc.Path, "its MIME headers are malformed", err)
	}
	m := &mailReader{ctx: ctx, rootHTML: true}
	m.part(textproto.MIMEHeader(msg.Header), msg.Body, 0)
	if err := ctx.Err(); err != nil {
		return err
	}
	var page *mailBody
	for i, b := range m.bodies {
		if b.html {
			page = &m.bodies[i]
			break
		}
	}
	if page == nil {
		return newError(ErrCorrupt, doc.Path, "it holds no HTML page", nil)
	}
	root, err := parseHTML(page.data, page.contentType())
	if err != nil {
		return newError(ErrCorrupt, doc.Path, "its HTML cannot be parsed", err)
	}
	w := newBuilder(MaxText)
	info := extractHTML(w, root)
	if err := w.finish(doc, "no text in the page"); err != nil {
		return err
	}
	title := info.title
	if title == "" {
		if d, err := mimeDecoder().DecodeHeader(msg.Header.Get("Subject")); err == nil {
			title = d
		}
	}
	doc.Author = cleanLine(info.author)
	doc.Title = chooseTitle(title, doc.Pages, doc.Path)
	return nil
}

/* Tests for agent/web: address classes in every form, HTML to Markdown on real manuals. */
#include "autoconf.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "file.h"
#include "t.h"
#include "web/html2md.h"
#include "web/webaddr.h"

static enum webaddr_class
host_class(const char *host)
{
	struct sockaddr_storage ss;

	if (webaddr_parse_host(host, &ss) != 0)
		return (enum webaddr_class)-1;
	return webaddr_classify((struct sockaddr *)&ss);
}

T_TEST(addr_forms)
{
	T_EQ_INT(host_class("127.0.0.1"), WEBADDR_LOOPBACK);
	T_EQ_INT(host_class("127.1"), WEBADDR_LOOPBACK);
	T_EQ_INT(host_class("2130706433"), WEBADDR_LOOPBACK);	/* decimal */
	T_EQ_INT(host_class("0177.0.0.1"), WEBADDR_LOOPBACK);	/* octal */
	T_EQ_INT(host_class("0x7f.0.0.1"), WEBADDR_LOOPBACK);	/* hex */
	T_EQ_INT(host_class("0x7f000001"), WEBADDR_LOOPBACK);
	T_EQ_INT(host_class("[::1]"), WEBADDR_LOOPBACK);
	T_EQ_INT(host_class("[::ffff:127.0.0.1]"), WEBADDR_LOOPBACK);	/* v4-mapped */
	T_EQ_INT(host_class("[::ffff:7f00:1]"), WEBADDR_LOOPBACK);
	T_EQ_INT(host_class("[64:ff9b::a00:1]"), WEBADDR_PRIVATE);	/* NAT64 of 10.0.0.1 */
	T_EQ_INT(host_class("[2002:c0a8:101::]"), WEBADDR_PRIVATE);	/* 6to4 of 192.168.1.1 */
	T_EQ_INT(host_class("0.0.0.0"), WEBADDR_UNSPECIFIED);
	T_EQ_INT(host_class("0"), WEBADDR_UNSPECIFIED);
	T_EQ_INT(host_class("[::]"), WEBADDR_UNSPECIFIED);
	T_EQ_INT(host_class("10.1.2.3"), WEBADDR_PRIVATE);
	T_EQ_INT(host_class("172.16.0.1"), WEBADDR_PRIVATE);
	T_EQ_INT(host_class("172.31.255.255"), WEBADDR_PRIVATE);
	T_EQ_INT(host_class("172.32.0.1"), WEBADDR_PUBLIC);
	T_EQ_INT(host_class("192.168.0.1"), WEBADDR_PRIVATE);
	T_EQ_INT(host_class("100.64.0.1"), WEBADDR_PRIVATE);
	T_EQ_INT(host_class("[fd12::1]"), WEBADDR_PRIVATE);
	T_EQ_INT(host_class("169.254.1.1"), WEBADDR_LINK_LOCAL);
	T_EQ_INT(host_class("[fe80::1%25eth0]"), WEBADDR_LINK_LOCAL);
	T_EQ_INT(host_class("169.254.169.254"), WEBADDR_METADATA);
	T_EQ_INT(host_class("0xa9fea9fe"), WEBADDR_METADATA);
	T_EQ_INT(host_class("[::ffff:169.254.169.254]"), WEBADDR_METADATA);
	T_EQ_INT(host_class("[fd00:ec2::254]"), WEBADDR_METADATA);
	T_EQ_INT(host_class("224.0.0.1"), WEBADDR_RESERVED);
	T_EQ_INT(host_class("255.255.255.255"), WEBADDR_RESERVED);
	T_EQ_INT(host_class("93.184.216.34"), WEBADDR_PUBLIC);
	T_EQ_INT(host_class("[2606:2800:220:1::]"), WEBADDR_PUBLIC);
	T_OK(host_class("example.com") == (enum webaddr_class)-1);
	T_OK(host_class("127.0.0.1.nip.io") == (enum webaddr_class)-1);
}

static char *
md_of(const char *html, const char *base, size_t cap, bool *truncated)
{
	struct buf out = BUF_INIT(BUF_NOLIMIT);
	struct html2md_result r;

	if (html2md(html, strlen(html), base, cap, &out, &r) != 0)
		return NULL;
	if (truncated != NULL)
		*truncated = r.truncated;
	return buf_detach(&out, NULL);
}

T_TEST(md_shapes)
{
	char *md = md_of("<html><head><title>T</title><script>evil()</script></head><body>"
	    "<h2>Sub <em>head</em></h2><p>Some  <b>bold</b>\n text with <code>x()</code> and "
	    "<a href=\"/doc/a.html\">a link</a>.</p>"
	    "<ul><li>one</li><li>two<ul><li>inner</li></ul></li></ul>"
	    "<ol start=\"3\"><li>three</li><li>four</li></ol>"
	    "<pre class=\"language-c\">int main(void)\n{\n\treturn 0;\n}</pre>"
	    "<table><tr><th>Name</th><th>Value</th></tr><tr><td>a|b</td><td>2</td></tr></table>"
	    "<blockquote><p>quoted</p></blockquote><style>p{}</style></body></html>",
	    "https://example.com/dir/page.html", 100000, NULL);

	T_OK(md != NULL);
	T_CONTAINS(md, "# T\n");
	T_CONTAINS(md, "## Sub *head*\n");
	T_CONTAINS(md, "Some **bold** text with `x()` and [a link](https://example.com/doc/a.html).");
	T_CONTAINS(md, "- one\n- two\n  - inner\n");
	T_CONTAINS(md, "3. three\n4. four\n");
	T_CONTAINS(md, "```c\nint main(void)\n{\n\treturn 0;\n}\n```");
	T_CONTAINS(md, "| Name | Value |\n| --- | --- |\n| a\\|b | 2 |\n");
	T_CONTAINS(md, "> quoted");
	T_OK(strstr(md, "evil") == NULL);
	T_OK(strstr(md, "p{}") == NULL);
	free(md);
}

T_TEST(md_cap)
{
	struct buf html = BUF_INIT(BUF_NOLIMIT);
	bool truncated = false;
	char *md;
	int i;

	for (i = 0; i < 5000; i++)
		buf_printf(&html, "<p>paragraph %d with some words in it</p>", i);
	md = md_of(buf_cstr(&html), NULL, 4096, &truncated);
	T_OK(md != NULL && strlen(md) <= 4096);
	T_OK(truncated);
	free(md);
	buf_release(&html);
}

T_TEST(md_hostile)
{
	struct buf html = BUF_INIT(BUF_NOLIMIT);
	char *md;
	int i;

	/* Deeper than anything the walk follows: left out, never a crash. */
	for (i = 0; i < 20000; i++)
		buf_puts(&html, "<div><span>");
	buf_puts(&html, "deep");
	md = md_of(buf_cstr(&html), NULL, 100000, NULL);
	T_OK(md != NULL);
	free(md);
	md = md_of("<pre>```\nfenced\n```</pre><a href=\"javascript:alert(1)\">js</a>"
	    "<img src=\"x.png\"><img alt=\"logo\" src=\"l.png\">", "http://h/", 100000, NULL);
	T_CONTAINS(md, "~~~~\n```\nfenced\n```\n~~~~");
	T_CONTAINS(md, "js");
	T_OK(strstr(md, "javascript") == NULL);
	T_CONTAINS(md, "![logo](http://h/l.png)");
	free(md);
	buf_release(&html);
}

static char *
md_file(const char *path)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT), out = BUF_INIT(BUF_NOLIMIT);
	struct file_status st;
	struct html2md_result r;

	if (file_read(path, 8u * 1024 * 1024, FILE_REGULAR, &b, &st) != 0) {
		buf_release(&b);
		return NULL;
	}
	html2md(b.data, b.len, "http://127.0.0.1/manual.html", 1u << 20, &out, &r);
	buf_release(&b);
	return buf_detach(&out, NULL);
}

/* bzip2's manual: DocBook of 2019, headings in divs, code in pre. */
T_TEST(md_bzip2_manual)
{
	char *md = md_file("/usr/share/doc/bzip2/manual.html");

	if (md == NULL) {
		printf("# skip: bzip2-doc is not installed\n");
		return;
	}
	T_CONTAINS(md, "# bzip2 and libbzip2, version 1.0.8\n");
	T_CONTAINS(md, "\n# 1. Introduction\n");
	T_CONTAINS(md, "\n## 3.3. Low-level interface\n\n### 3.3.1. BZ2_bzCompressInit\n\n"
	    "```\ntypedef struct {\n  char *next_in;\n");
	T_CONTAINS(md, "\n## 2.2. SYNOPSIS\n");
	/* The table of contents: nested definition lists. */
	T_CONTAINS(md, "3. Programming with `libbzip2`\n: 3.1. Top-level structure\n"
	    "  : 3.1.1. Low-level summary\n");
	T_OK(strstr(md, "<div") == NULL && strstr(md, "</") == NULL);
	free(md);
}

/* libtasn1's reference: gtk-doc, with tables of functions and of parameters. */
T_TEST(md_tasn1_reference)
{
	char *md = md_file("/usr/share/gtk-doc/html/libtasn1/libtasn1-libtasn1.html");

	if (md == NULL) {
		printf("# skip: libtasn1-doc is not installed\n");
		return;
	}
	T_CONTAINS(md, "## Functions\n\n| int | [asn1_parser2tree]"
	    "(http://127.0.0.1/libtasn1-libtasn1.html#asn1-parser2tree) () |\n| --- | --- |\n");
	T_CONTAINS(md, "### asn1_parser2tree ()\n\n```\nint\nasn1_parser2tree (const char *file,\n");
	T_CONTAINS(md, "#### Parameters\n\n| file | specify the path");
	T_OK(strstr(md, "| ## ") == NULL);
	free(md);
}

int
main(void)
{
	T_RUN(addr_forms);
	T_RUN(md_shapes);
	T_RUN(md_cap);
	T_RUN(md_hostile);
	T_RUN(md_bzip2_manual);
	T_RUN(md_tasn1_reference);
	return t_done();
}

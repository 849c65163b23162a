#ifndef SEEDFORGE_CLIBXML2_SHIM_H
#define SEEDFORGE_CLIBXML2_SHIM_H
/* Debian's libxml2 is built with ICU, and its encoding header then includes ICU's own
   headers, which clash with the ICU that Foundation bundles. seedforge never uses
   libxml2's ICU converters, so that part of the header is left out. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <libxml/HTMLparser.h>

/* xmlFree is a global function pointer, which Swift 6 cannot call safely. */
static inline void seedforge_xml_free(void *pointer) { xmlFree(pointer); }

/* Counts and keeps the first of the errors libxml2 reports while one document is parsed
   (the handler is per thread in libxml2, so parallel parses do not mix their errors). */
typedef struct {
    int count;
    int first_line;
    char first_message[256];
} seedforge_xml_errors;

static void seedforge_xml_collect(void *context, xmlErrorPtr error) {
    seedforge_xml_errors *errors = (seedforge_xml_errors *)context;
    if (!errors || !error) return;
    /* libxml2 parses HTML 4: HTML5 elements (article, header, nav...) are not errors. */
    if (error->code == XML_HTML_UNKNOWN_TAG) return;
    if (errors->count == 0) {
        errors->first_line = error->line;
        const char *message = error->message ? error->message : "unknown error";
        size_t i = 0;
        for (; message[i] && message[i] != '\n' && i + 1 < sizeof errors->first_message; i++) errors->first_message[i] = message[i];
        errors->first_message[i] = 0;
    }
    errors->count++;
}

static void seedforge_xml_ignore(void *context, xmlErrorPtr error) { (void)context; (void)error; }

/* Runs XPath work without libxml2 printing errors (unknown functions, bad expressions):
   seedforge reports them itself. */
static inline void seedforge_xml_quiet(int on) {
    if (on) xmlSetStructuredErrorFunc(NULL, seedforge_xml_ignore); else xmlSetStructuredErrorFunc(NULL, NULL);
}

/* Parses HTML from memory with the given encoding: recovery on, no network, no
   external entities, errors to `errors` instead of standard error. */
static inline htmlDocPtr seedforge_html_parse(const char *bytes, int length, const char *url, const char *encoding,
                                              seedforge_xml_errors *errors) {
    xmlSetStructuredErrorFunc(errors, seedforge_xml_collect);
    htmlDocPtr document = htmlReadMemory(bytes, length, url, encoding,
        HTML_PARSE_RECOVER | HTML_PARSE_NONET | HTML_PARSE_NOERROR | HTML_PARSE_NOWARNING | HTML_PARSE_COMPACT | HTML_PARSE_NOBLANKS | HTML_PARSE_IGNORE_ENC | 1 << 19 /* HUGE */);
    xmlSetStructuredErrorFunc(NULL, NULL);
    return document;
}
#endif

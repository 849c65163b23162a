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
#endif

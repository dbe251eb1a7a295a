// FreeType 2 (Debian's libfreetype-dev) for Swift. FreeType's headers are included through
// macros (FT_FREETYPE_H), which a module map cannot name, and a few of its flags are macros
// Swift may not import: this header does the first and gives the second as plain values.
#ifndef TESSERA_CFREETYPE_SHIM_H
#define TESSERA_CFREETYPE_SHIM_H

#include <ft2build.h>
#include FT_FREETYPE_H

/// FT_LOAD_DEFAULT: the glyph's outline, hinted, for its advance.
static inline FT_Int32 tessera_ft_load_default(void) { return FT_LOAD_DEFAULT; }
/// FT_LOAD_RENDER: the glyph rendered to an 8-bit anti-aliased coverage bitmap (FT_RENDER_MODE_NORMAL).
static inline FT_Int32 tessera_ft_load_render(void) { return FT_LOAD_RENDER; }
/// FT_HAS_KERNING(face): whether the face has a kerning table FT_Get_Kerning reads.
static inline int tessera_ft_has_kerning(FT_Face face) { return FT_HAS_KERNING(face) ? 1 : 0; }

#endif

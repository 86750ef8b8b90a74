"""The symbols a run shows (nb_agent/jupyter/view/glyphs.py) are drawn in a real page with
the fonts JupyterLab's outputs use, not as the empty box chromium draws for a character
none of the machine's fonts has (⏹ ⏺ ⎿ ⏵⏵ ⏸ were such boxes with Debian's default fonts)."""

from __future__ import annotations

import pytest

from nb_agent.jupyter.view import glyphs

from .conftest import NotebookPage

pytestmark = pytest.mark.timeout(600)  # JupyterLab and chromium start in the first test of a module

# Each glyph drawn on a canvas in each of JupyterLab's font stacks (a canvas falls back from
# font to font like the page's text does), its pixels compared with those of a noncharacter
# no font has: the same pixels are the missing-glyph box.
DRAWN_JS = """
([glyphs, variables]) => {
  const canvas = document.createElement('canvas'); canvas.width = 48; canvas.height = 48;
  const g = canvas.getContext('2d', { willReadFrequently: true });
  const draw = (ch, font) => {
    g.clearRect(0, 0, 48, 48); g.font = `28px ${font}`; g.fillStyle = '#000'; g.fillText(ch, 6, 36);
    return g.getImageData(0, 0, 48, 48).data.join(',');
  };
  const blank = (g.clearRect(0, 0, 48, 48), g.getImageData(0, 0, 48, 48).data.join(','));
  const result = {};
  for (const variable of variables) {
    const font = getComputedStyle(document.body).getPropertyValue(variable).trim();
    const box = draw('\\u{10FFFD}', font);
    result[variable] = { font, boxDrawn: box !== blank, missing: glyphs.filter(ch => { const p = draw(ch, font); return p === box || p === blank; }) };
  }
  return result;
}
"""

FONTS = ["--jp-content-font-family", "--jp-code-font-family", "--jp-ui-font-family"]


def test_every_glyph_of_a_run_is_drawn_in_the_page_fonts(lab, new_page):
    lab.notebook("glyphs.ipynb", ["1"])
    nb = NotebookPage(new_page(), lab, "glyphs.ipynb").open()
    drawn = nb.page.evaluate(DRAWN_JS, [list(glyphs.ALL), FONTS])
    assert all(d["font"] and d["boxDrawn"] for d in drawn.values()), drawn  # the fonts were read, and a missing glyph shows as something to compare with
    assert {v: d["missing"] for v, d in drawn.items()} == {v: [] for v in FONTS}, drawn

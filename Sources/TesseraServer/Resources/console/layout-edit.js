// Turns an operator's edit of one drawn region into the `layout` of a PATCH. The server's own
// resolution (`layout.regions` of GET /v1/tasks/{id}/document, in canvas pixels) is what is
// drawn; the edit is written into the document's region so everything else it says (images,
// placeholders, crops, masks) is kept. A layout placed by a template has no region to edit: on
// the first edit it becomes explicit regions, one per placed input, plus its own image and text
// regions.

/** A deep copy of the document's layout with `change(region)` applied to the region drawn as `drawn`. */
export function editedLayout(doc, summary, drawn, change) {
  const layout = structuredClone(doc.layout || {});
  let regions;
  let index;
  if (isExplicit(doc, summary)) {
    regions = layout.regions;
    index = drawn.documentIndex;
  } else {
    // Materialise: the template's slots as they are drawn now, bottom first.
    const own = (layout.regions || []).filter((r) => r.input === undefined);
    const placed = summary.regions.filter((r) => r.kind === 'input').map((r, order) => ({
      input: r.input, x: r.x, y: r.y, width: r.width, height: r.height, zOrder: order,
      renderMode: r.renderMode, alpha: r.alpha,
    }));
    regions = [...placed, ...own];
    // The template's own image and text regions are drawn in the order they are written.
    index = drawn.kind === 'input'
      ? summary.regions.filter((r) => r.kind === 'input').indexOf(drawn)
      : placed.length + summary.regions.filter((r) => r.kind !== 'input').indexOf(drawn);
    delete layout.template;
    delete layout.fill;
    delete layout.main;
    layout.regions = regions;
  }
  const region = regions[index];
  change(region);
  return {layout, index};
}

export function isExplicit(doc, summary) {
  return Boolean(doc.layout && Array.isArray(doc.layout.regions) && !summary.template);
}

/** Sets a region's rectangle in canvas pixels (snapped to even, as the server draws). */
export function placeRegion(region, rect) {
  const even = (v) => 2 * Math.round(v / 2);
  delete region.units;
  region.x = even(rect.x);
  region.y = even(rect.y);
  region.width = Math.max(2, even(rect.width));
  region.height = Math.max(2, even(rect.height));
}

/** The document's region drawn as `drawn`, or null (a template slot). */
export function documentRegion(doc, summary, drawn) {
  return isExplicit(doc, summary) ? doc.layout.regions[drawn.documentIndex] || null : null;
}

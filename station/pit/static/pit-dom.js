// The page's elements: finding one by its id, making one with its class and text.
//
// Every part of the page builds its elements the same way; one small helper here keeps
// the drawing modules free of the DOM's long names.

export const $ = (id) => document.getElementById(id);

// The grid of tiles.
export const grid = $("tiles");

export function make(tag, className, text) {
  const el = document.createElement(tag);
  if (className) el.className = className;
  if (text !== undefined) el.textContent = text;
  return el;
}

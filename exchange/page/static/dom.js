// Small DOM helpers: build elements without innerHTML, so server text is never parsed as markup.

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") el.className = value;
    else if (key === "dataset") Object.assign(el.dataset, value);
    else if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function $(id) {
  return document.getElementById(id);
}

/** Set an element's text only when it changed (no needless reflow). */
export function setText(el, text) {
  const value = String(text);
  if (el.textContent !== value) el.textContent = value;
}

export function setClass(el, name) {
  if (el.className !== name) el.className = name;
}

export function replaceChildren(el, children) {
  el.replaceChildren(...children);
}

/**
 * Make ``el``'s children exactly ``children``, in order, touching only what changed: a child already in its place
 * is not moved, so a focused field in it keeps its focus and what is typed there.
 */
export function keepChildren(el, children) {
  const kept = new Set(children);
  for (const child of [...el.children]) if (!kept.has(child)) child.remove();
  children.forEach((child, i) => {
    if (el.children[i] !== child) el.insertBefore(child, el.children[i] ?? null);
  });
}

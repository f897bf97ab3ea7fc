// Where the page scrolls: to the cited passage when a citation opens it, to the top on
// another page, and to the current search hit when it is out of sight.

/** The scroll offset that puts el a third of the way down the scroller. */
function thirdDown(scroller: HTMLElement, el: HTMLElement): number {
  const sr = scroller.getBoundingClientRect();
  const hr = el.getBoundingClientRect();
  return Math.max(0, scroller.scrollTop + hr.top - sr.top - scroller.clientHeight / 3);
}

/** Scrolls el a third of the way down, if it is not wholly in sight. */
export function reveal(scroller: HTMLElement, el: HTMLElement): void {
  const sr = scroller.getBoundingClientRect();
  const hr = el.getBoundingClientRect();
  if (hr.top < sr.top || hr.bottom > sr.bottom) scroller.scrollTo({ top: thirdDown(scroller, el) });
}

/**
 * What to do after a page is drawn: go to the passage's mark once per citation opened
 * (seq), to the top when the page is another one, else stay (a zoom, a redraw).
 */
export class AfterDraw {
  #seq = -1;
  #page = 0;

  next(hasMark: boolean, seq: number, page: number): 'mark' | 'top' | null {
    const newTarget = seq !== this.#seq;
    const newPage = page !== this.#page;
    this.#page = page;
    if (hasMark && newTarget) {
      this.#seq = seq;
      return 'mark';
    }
    return newPage ? 'top' : null;
  }

  /** Scrolls for a page drawn into layer (the strong mark first, else the first mark). */
  scroll(scroller: HTMLElement, layer: HTMLElement, seq: number, page: number): void {
    const mark = (layer.querySelector('.passage-hl.strong') ?? layer.querySelector('.passage-hl')) as HTMLElement | null;
    const to = this.next(!!mark, seq, page);
    if (to === 'mark') scroller.scrollTo({ top: thirdDown(scroller, mark!), behavior: 'smooth' });
    else if (to === 'top') scroller.scrollTo({ top: 0 });
  }
}

/** The diff layout the user picked last, remembered across diffs and restarts. */
import { create } from "zustand";

export type DiffLayout = "unified" | "split";

const STORAGE_KEY = "tack.diffLayout";

function stored(): DiffLayout {
  try {
    return localStorage.getItem(STORAGE_KEY) === "split" ? "split" : "unified";
  } catch {
    return "unified";
  }
}

export const useDiffLayout = create<{ layout: DiffLayout; setLayout(layout: DiffLayout): void }>()((set) => ({
  layout: stored(),
  setLayout(layout) {
    try {
      localStorage.setItem(STORAGE_KEY, layout);
    } catch {
      // Not remembered, still applied.
    }
    set({ layout });
  },
}));

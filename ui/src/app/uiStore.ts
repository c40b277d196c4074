/**
 * Which main view is showing and which panes are open.
 */
import { create } from "zustand";

export type MainView = "start" | "session" | "settings";

export interface UiState {
  view: MainView;
  /** The view to return to when settings close. */
  previousView: Exclude<MainView, "settings">;
  inspectorOpen: boolean;
  /** A timeline row to scroll to and highlight; `seq` makes a repeated request a new one. */
  reveal: { rowId: string; seq: number } | null;
  show(view: MainView): void;
  closeSettings(): void;
  toggleInspector(): void;
  setInspector(open: boolean): void;
  revealRow(rowId: string): void;
}

export const useUiStore = create<UiState>()((set, get) => ({
  view: "start",
  previousView: "start",
  inspectorOpen: false,
  reveal: null,
  show(view) {
    const current = get().view;
    set({ view, previousView: current === "settings" ? get().previousView : current });
  },
  closeSettings() {
    set({ view: get().previousView });
  },
  toggleInspector() {
    set({ inspectorOpen: !get().inspectorOpen });
  },
  setInspector(open) {
    set({ inspectorOpen: open });
  },
  revealRow(rowId) {
    set({ reveal: { rowId, seq: (get().reveal?.seq ?? 0) + 1 } });
  },
}));

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
  show(view: MainView): void;
  closeSettings(): void;
  toggleInspector(): void;
  setInspector(open: boolean): void;
}

export const useUiStore = create<UiState>()((set, get) => ({
  view: "start",
  previousView: "start",
  inspectorOpen: false,
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
}));

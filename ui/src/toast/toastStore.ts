/**
 * Short-lived notices ("Copied", "Exported to …", failures of background calls).
 */
import { create } from "zustand";

export type ToastTone = "info" | "success" | "error";

export interface Toast {
  id: number;
  tone: ToastTone;
  message: string;
  detail: string | null;
}

interface ToastState {
  toasts: Toast[];
  push(tone: ToastTone, message: string, detail?: string | null): number;
  dismiss(id: number): void;
}

/** How long a toast stays, in ms. Errors stay longer: they usually need reading. */
const LIFETIME_MS: Record<ToastTone, number> = { info: 3000, success: 3000, error: 8000 };

let nextId = 1;

export const useToastStore = create<ToastState>()((set, get) => ({
  toasts: [],
  push(tone, message, detail = null) {
    const id = nextId++;
    set({ toasts: [...get().toasts.slice(-3), { id, tone, message, detail }] });
    setTimeout(() => get().dismiss(id), LIFETIME_MS[tone]);
    return id;
  },
  dismiss(id) {
    set({ toasts: get().toasts.filter((t) => t.id !== id) });
  },
}));

/** Shows a toast from anywhere (outside React too). */
export const toast = {
  info: (message: string, detail?: string | null) => useToastStore.getState().push("info", message, detail),
  success: (message: string, detail?: string | null) => useToastStore.getState().push("success", message, detail),
  error: (message: string, detail?: string | null) => useToastStore.getState().push("error", message, detail),
};

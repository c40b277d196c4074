/**
 * What the app can run with: providers, harnesses and app facts (keychain status).
 */
import { create } from "zustand";
import { describeFailure, shell, type AppInfo, type HarnessInfo, type ProviderView } from "../ipc";
import { toast } from "../toast/toastStore";

export interface CatalogState {
  appInfo: AppInfo | null;
  providers: ProviderView[];
  harnesses: HarnessInfo[];
  loaded: boolean;
  load(): Promise<void>;
  refreshProviders(): Promise<void>;
  /** Reads the app facts again (the config file may have been fixed or broken since). */
  refreshAppInfo(): Promise<void>;
  /**
   * Reads the providers and the app facts again, as the backend has them now (after a save or a
   * delete, which re-read config.toml, or "Check again"), so providers added to the file by hand
   * show up everywhere (Settings, the start panel) and a fixed config problem goes.
   */
  refresh(): Promise<void>;
  /** Replaces one provider in place (after save or a key change). */
  putProvider(provider: ProviderView): void;
}

export const useCatalogStore = create<CatalogState>()((set, get) => ({
  appInfo: null,
  providers: [],
  harnesses: [],
  loaded: false,

  async load() {
    try {
      const [appInfo, providers, harnesses] = await Promise.all([
        shell.appInfo(),
        shell.listProviders(),
        shell.listHarnesses(),
      ]);
      set({ appInfo, providers, harnesses, loaded: true });
    } catch (error) {
      const { message, hint } = describeFailure(error);
      toast.error(`Could not load settings: ${message}`, hint);
      set({ loaded: true });
    }
  },

  async refreshProviders() {
    try {
      set({ providers: await shell.listProviders() });
    } catch (error) {
      const { message, hint } = describeFailure(error);
      toast.error(`Could not list providers: ${message}`, hint);
    }
  },

  async refreshAppInfo() {
    try {
      set({ appInfo: await shell.appInfo() });
    } catch (error) {
      const { message, hint } = describeFailure(error);
      toast.error(`Could not read the app settings: ${message}`, hint);
    }
  },

  async refresh() {
    await Promise.all([get().refreshAppInfo(), get().refreshProviders()]);
  },

  putProvider(provider) {
    const providers = get().providers;
    const at = providers.findIndex((p) => p.id === provider.id);
    set({
      providers: at >= 0 ? providers.map((p, i) => (i === at ? provider : p)) : [...providers, provider],
    });
  },
}));

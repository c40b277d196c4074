/** IIFE entry for Playwright's addInitScript: installs the mock before the app loads. */
import { installMockShell } from "./install";

installMockShell();

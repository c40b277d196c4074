/**
 * How the user can give Tack a provider's key here, in words that match what is possible:
 * with a keychain, in Settings (or the provider's environment variable); without one, only
 * through the environment variable (Tack never stores keys in a file).
 */
export interface KeyAdvice {
  text: string;
  /** Settings is where the next step happens (so an "Open Settings" button helps). */
  inSettings: boolean;
}

export function keyAdvice(envKey: string | null, keychainAvailable: boolean): KeyAdvice {
  if (keychainAvailable) {
    return {
      text: envKey
        ? `Set the key in Settings, or set ${envKey} in the environment Tack starts from.`
        : "Set the key in Settings.",
      inSettings: true,
    };
  }
  if (envKey) {
    return {
      text: `Set ${envKey} to the key in the environment Tack starts from (e.g. export ${envKey}=… in your shell profile), then restart Tack. There is no system keychain here, so Settings can't store keys.`,
      inSettings: false,
    };
  }
  return {
    text: "There is no system keychain here, so Settings can't store keys: give this provider a key environment variable in Settings, set that variable in the environment Tack starts from, then restart Tack.",
    inSettings: true,
  };
}

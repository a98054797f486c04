import type { SpadeBridge } from "../../../../shared/api/SpadeBridge.js";
import { httpTransport } from "./httpTransport.js";
import { ipcTransport } from "./ipcTransport.js";
import type { Transport } from "./Transport.js";

declare global {
  interface Window {
    spade?: SpadeBridge;
  }
}

/** Electron's preload bridge when present, else HTTP with the token from the page address. */
export function pickTransport(): Transport {
  if (window.spade) return ipcTransport(window.spade);
  const fromUrl = new URLSearchParams(window.location.search).get("token");
  const token = fromUrl ?? window.sessionStorage.getItem("spade-token") ?? "";
  if (fromUrl) window.sessionStorage.setItem("spade-token", fromUrl);
  return httpTransport({ token });
}

const table = (() => {
  const entries = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    entries[n] = c >>> 0;
  }
  return entries;
})();

/** CRC-32C (Castagnoli), the checksum TFRecord files use. */
export function crc32c(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = table[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** TFRecord's masked CRC: rotated and offset so that a CRC of data containing CRCs stays well distributed. */
export function maskedCrc32c(bytes: Uint8Array): number {
  const crc = crc32c(bytes);
  return (((crc >>> 15) | (crc << 17)) + 0xa282ead8) >>> 0;
}

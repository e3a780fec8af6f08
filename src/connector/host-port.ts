/** `host:port` of a URL with the scheme's default port made explicit, as allowlists spell it. */
export function hostPort(url: URL): string {
  const port = url.port !== "" ? url.port : url.protocol === "https:" ? "443" : "80";
  return `${url.hostname.toLowerCase()}:${port}`;
}

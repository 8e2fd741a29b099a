/** A writable stand-in for stdout/stderr that keeps what was written (isTTY chooses bar or plain-line progress). */
export class Sink {
  text = "";
  constructor(readonly isTTY = false) {}
  write(s: string): boolean {
    this.text += s;
    return true;
  }
}

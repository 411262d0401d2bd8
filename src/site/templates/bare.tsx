/** A page with no project around it: a site nobody has, or one that cannot be shown right now. */
export function BareDocument({ title, text }: { title: string; text: string }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{title}</title>
      </head>
      <body>
        <main>
          <h1>{title}</h1>
          <p>{text}</p>
        </main>
      </body>
    </html>
  );
}

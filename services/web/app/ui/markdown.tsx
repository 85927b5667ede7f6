import ReactMarkdown from 'react-markdown';

/**
 * Markdown taken from the web, rendered as React elements (never as HTML: raw HTML in it stays
 * text). Images are shown as their alt text with a link, so a page never makes the app load a
 * third party's file.
 */
export const Markdown = ({ text }: { text: string }) => (
  <div className="markdown">
    <ReactMarkdown
      skipHtml
      components={{
        img: ({ alt, src }) => (
          <span className="muted">
            [image{alt ? `: ${alt}` : ''}
            {typeof src === 'string' && src ? ` — ${src}` : ''}]
          </span>
        ),
        a: ({ href, children }) => (
          <a href={href} rel="noopener noreferrer nofollow" target="_blank">
            {children}
          </a>
        ),
      }}
    >
      {text}
    </ReactMarkdown>
  </div>
);

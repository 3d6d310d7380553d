# Asciidoctor's reading of AsciiDoc pages, for benchmarks/quality/adoc_read.py: one JSON object a
# line on stdin ({"text": ..., "compat": true|false}), one a line on stdout ({"doctitle": ...,
# "titles": [...], "html": ...}: the document title, the section and discrete titles in order, the
# body converted to HTML without the page around it). Includes are not followed (as docqa does not
# follow them); git's linkgit:page[1] macro shows page(1), as git's own extension makes it.
# Debian: apt-get install asciidoctor.
require 'asciidoctor'
require 'asciidoctor/extensions'
require 'json'

class SkipIncludes < Asciidoctor::Extensions::IncludeProcessor
  def handles?(_target)
    true
  end

  def process(_doc, _reader, _target, _attributes); end
end

class LinkGit < Asciidoctor::Extensions::InlineMacroProcessor
  use_dsl
  named :linkgit

  def process(parent, target, attrs)
    create_anchor parent, "#{target}(#{attrs[1]})", type: :link, target: "#{target}.html"
  end
end

Asciidoctor::Extensions.register do
  include_processor SkipIncludes
  inline_macro LinkGit
end
Asciidoctor::LoggerManager.logger = Logger.new(File::NULL)

$stdout.sync = true
$stdin.each_line do |line|
  given = JSON.parse(line)
  attributes = given['compat'] ? { 'compat-mode' => '' } : {}
  begin
    doc = Asciidoctor.load(given['text'], safe: :safe, attributes: attributes)
    titles = doc.find_by { |b| (b.context == :section && !b.equal?(doc.header)) || b.context == :floating_title }
    out = { doctitle: doc.header? ? doc.doctitle : nil, titles: titles.map(&:title),
            html: doc.convert }
  rescue StandardError => e
    out = { error: e.message }
  end
  puts JSON.generate(out)
end

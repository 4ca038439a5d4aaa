# Theme files, installed to $(pkgdatadir)/themes (the format: any of them).
dist_themes_DATA += themes/dark.theme themes/light.theme themes/high-contrast.theme \
	themes/solarized-dark.theme themes/mono.theme
